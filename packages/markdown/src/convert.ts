import { collapseCarousels } from "./carousels.ts";
import { normalizeText, preLineBreaks, removeNonContent } from "./clean.ts";
import { removeConsentNotices } from "./extract/consent.ts";
import { removeDialogs } from "./extract/dialogs.ts";
import { removeFillerText } from "./extract/filler.ts";
import { extractMainContent, type MainContentStatus, pageTypeFeatures } from "./extract/index.ts";
import { type PageHints, type PageType, readHints } from "./extract/page-type.ts";

export type { MainContentStatus, PageType };

import { removeLogoWalls } from "./extract/logo-walls.ts";
import { emailForms, removeSignupBoxes } from "./extract/signup-boxes.ts";
import { removeNavigationChrome, removeNeverContent } from "./extract/whole-page.ts";
import { collapseSpaces, parseDocument } from "./parse.ts";
import { excludeElements, includeElements } from "./selectors.ts";
import { convertInPlace, createService } from "./service.ts";
import { normalizeTables } from "./tables.ts";
import { tidyMarkdown } from "./tidy.ts";
import { absolutizeUrls, resolveBaseUrl } from "./urls.ts";

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

const service = createService();

interface Prepared {
  root: Element;
  title?: string;
  baseHref?: string;
  mainContent?: MainContentStatus;
  pageType?: PageType;
}

interface Cleaned {
  root: Element;
  body: Element;
  title?: string;
  baseHref?: string;
  hints?: PageHints;
}

/** The parsed page without what is never content; with `extract`, dialogs and filler go too. */
function clean(html: string, opts: HtmlToMarkdownOptions, extract: boolean): Cleaned | undefined {
  const document = parseDocument(html);
  const root = document.documentElement;
  if (!root) return undefined;
  // Before cleaning: the JSON-LD that says what the page is goes with the scripts.
  const hints = extract ? readHints(document, opts.baseUrl) : undefined;
  // Before cleaning too: inputs go with it, and an e-mail field is what tells a sign-up form.
  const signups = extract ? emailForms(root) : [];
  const meta = removeNonContent(root);
  const title = meta.title ?? (collapseSpaces(root.querySelector("h1")?.textContent ?? "") || undefined);
  const body = root.querySelector("body") ?? root;
  removeConsentNotices(body);
  if (opts.excludeTags?.length) excludeElements(body, opts.excludeTags);
  if (opts.includeTags?.length) includeElements(body, opts.includeTags);
  if (extract) {
    removeDialogs(body);
    removeFillerText(body);
    removeSignupBoxes(signups, body);
  } else {
    removeNeverContent(body);
    // What the caller picked with includeTags stays, chrome or not.
    if (!opts.includeTags?.length) removeNavigationChrome(body);
  }
  return {
    root,
    body,
    ...(title ? { title } : {}),
    ...(meta.baseHref ? { baseHref: meta.baseHref } : {}),
    ...(hints ? { hints } : {}),
  };
}

function prepare(html: string, opts: HtmlToMarkdownOptions, extract: boolean): Prepared | undefined {
  const page = clean(html, opts, extract);
  if (!page) return undefined;
  const { root, title, baseHref, hints } = page;
  if (!extract) return { root, title, baseHref };
  const main = extractMainContent(root, {
    ...(hints ? { hints } : {}),
    ...(opts.pageType ? { pageType: opts.pageType } : {}),
  });
  return { root: main.root, title, baseHref, mainContent: main.status, pageType: main.pageType };
}

/** What the page-type classifier reads of a page (bench/markdown-quality/train-page-type.ts learns from it). */
export function pageTypeFeaturesOf(html: string, baseUrl: string): Map<string, number> {
  const page = clean(html, { baseUrl, onlyMainContent: true }, true);
  return page?.hints ? pageTypeFeatures(page.body, page.hints) : new Map();
}

export function htmlToMarkdown(html: string, opts: HtmlToMarkdownOptions): HtmlToMarkdownResult {
  let prepared = prepare(html, opts, opts.onlyMainContent === true);
  // Extraction may have pruned the tree before giving up: the whole page is parsed again.
  if (prepared?.mainContent === "fallback_whole_page") {
    prepared = {
      ...(prepare(html, opts, false) as Prepared),
      mainContent: "fallback_whole_page",
      ...(prepared.pageType ? { pageType: prepared.pageType } : {}),
    };
  }
  if (!prepared)
    return { markdown: "", ...(opts.onlyMainContent ? { mainContent: "fallback_whole_page" } : {}) };
  const { root, title, baseHref, mainContent, pageType } = prepared;
  if (opts.onlyMainContent) removeLogoWalls(root);

  absolutizeUrls(root, resolveBaseUrl(baseHref, opts.baseUrl));
  preLineBreaks(root);
  normalizeText(root);
  normalizeTables(root);
  collapseCarousels(root);

  // The main content is what a reader sees once: a copy made for another screen or a hover is not.
  const markdown = tidyMarkdown(convertInPlace(service, root as HTMLElement), opts.onlyMainContent === true);
  return {
    markdown,
    ...(title ? { title } : {}),
    ...(mainContent ? { mainContent } : {}),
    // An empty page is of no kind.
    ...(pageType && markdown ? { pageType } : {}),
  };
}
