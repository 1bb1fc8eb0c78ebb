/**
 * HTML to markdown: the page runs through PASSES (passes.ts) in order, cleaning, main-content
 * extraction with onlyMainContent, the pre-passes of the conversion, turndown and the tidy-up.
 */
import { pageTypeFeatures } from "./extract/body-shape.ts";
import type { MainContentStatus } from "./extract/index.ts";
import type { PageType } from "./extract/page-type.ts";
import { EXTRACT_MAIN_CONTENT, PASSES, type PageState, runPasses, startPage } from "./passes.ts";

export type { MainContentStatus, PageType };

export interface HtmlToMarkdownOptions {
  /** Final URL of the page; relative links and images resolve against it (or the document's <base href>). */
  baseUrl: string;
  /** Only the main content (article, documentation body, product details, thread), without page furniture. */
  onlyMainContent?: boolean;
  /** CSS selectors; when given, only matching elements (and what they contain) are converted. */
  includeTags?: readonly string[];
  /** CSS selectors; matching elements are removed before conversion. */
  excludeTags?: readonly string[];
  /** What kind of page this is, when the caller knows better than the classifier (onlyMainContent). */
  pageType?: PageType;
}

export interface HtmlToMarkdownResult {
  markdown: string;
  /** The document <title>, else the first <h1>; absent when neither has text. */
  title?: string;
  /** With onlyMainContent: whether main content was found, or the whole page was converted instead. */
  mainContent?: MainContentStatus;
  /** With onlyMainContent: what kind of page it is, which decides what its main content is. */
  pageType?: PageType;
}

/** The passes before extraction: what the classifier reads is the page as extraction gets it. */
const CLEANING = PASSES.slice(0, PASSES.indexOf(EXTRACT_MAIN_CONTENT));

/** What the page-type classifier reads of a page (scripts/train-page-type.ts learns from it). */
export function pageTypeFeaturesOf(html: string, baseUrl: string): Map<string, number> {
  const page = startPage(html, { baseUrl, onlyMainContent: true }, "main");
  if (!page) return new Map();
  runPasses(page, CLEANING);
  return page.hints ? pageTypeFeatures(page.body, page.hints) : new Map();
}

export function htmlToMarkdown(html: string, opts: HtmlToMarkdownOptions): HtmlToMarkdownResult {
  let page = startPage(html, opts, opts.onlyMainContent === true ? "main" : "page");
  if (!page) return { markdown: "", ...(opts.onlyMainContent ? { mainContent: "fallback_whole_page" } : {}) };
  runPasses(page);
  // Extraction may have pruned the tree before giving up: the whole page is parsed again. Never empty:
  // content that converts to nothing (every block of it dropped as chrome) gives the whole page too.
  if (
    (page.mainContent === "fallback_whole_page" && !page.cleanedInPlace) ||
    (page.mainContent !== undefined && page.markdown.trim() === "")
  )
    page = wholePageInstead(html, opts, page.pageType);
  const { markdown, title, mainContent, pageType } = page;
  return {
    markdown,
    ...(title ? { title } : {}),
    ...(mainContent ? { mainContent } : {}),
    // An empty page is of no kind.
    ...(pageType && markdown ? { pageType } : {}),
  };
}

function wholePageInstead(
  html: string,
  opts: HtmlToMarkdownOptions,
  pageType: PageType | undefined,
): PageState {
  const page = startPage(html, opts, "page") as PageState;
  runPasses(page);
  page.mainContent = "fallback_whole_page";
  if (pageType) page.pageType = pageType;
  return page;
}
