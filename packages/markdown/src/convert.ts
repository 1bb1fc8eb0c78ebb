import { normalizeText, preLineBreaks, removeNonContent } from "./clean.ts";
import { extractMainContent, type MainContentStatus } from "./extract/index.ts";

export type { MainContentStatus };

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
}

export interface HtmlToMarkdownResult {
  markdown: string;
  /** The document <title>, else the first <h1>; absent when neither has text. */
  title?: string;
  /** With onlyMainContent: whether main content was found, or the whole page was converted instead. */
  mainContent?: MainContentStatus;
}

const service = createService();

interface Prepared {
  root: Element;
  title?: string;
  baseHref?: string;
  mainContent?: MainContentStatus;
}

function prepare(html: string, opts: HtmlToMarkdownOptions, extract: boolean): Prepared | undefined {
  const document = parseDocument(html);
  const root = document.documentElement;
  if (!root) return undefined;
  const meta = removeNonContent(root);
  const title = meta.title ?? (collapseSpaces(root.querySelector("h1")?.textContent ?? "") || undefined);
  const body = root.querySelector("body") ?? root;
  if (opts.excludeTags?.length) excludeElements(body, opts.excludeTags);
  if (opts.includeTags?.length) includeElements(body, opts.includeTags);
  if (!extract) {
    removeNeverContent(body);
    // What the caller picked with includeTags stays, chrome or not.
    if (!opts.includeTags?.length) removeNavigationChrome(body);
    return { root, title, baseHref: meta.baseHref };
  }
  const main = extractMainContent(root);
  return { root: main.root, title, baseHref: meta.baseHref, mainContent: main.status };
}

export function htmlToMarkdown(html: string, opts: HtmlToMarkdownOptions): HtmlToMarkdownResult {
  let prepared = prepare(html, opts, opts.onlyMainContent === true);
  // Extraction may have pruned the tree before giving up: the whole page is parsed again.
  if (prepared?.mainContent === "fallback_whole_page") {
    prepared = { ...(prepare(html, opts, false) as Prepared), mainContent: "fallback_whole_page" };
  }
  if (!prepared)
    return { markdown: "", ...(opts.onlyMainContent ? { mainContent: "fallback_whole_page" } : {}) };
  const { root, title, baseHref, mainContent } = prepared;

  absolutizeUrls(root, resolveBaseUrl(baseHref, opts.baseUrl));
  preLineBreaks(root);
  normalizeText(root);
  normalizeTables(root);

  const markdown = tidyMarkdown(convertInPlace(service, root as HTMLElement));
  return { markdown, ...(title ? { title } : {}), ...(mainContent ? { mainContent } : {}) };
}
