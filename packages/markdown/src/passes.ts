/**
 * The conversion of one page, pass by pass: PASSES in the order they run. Each pass works on the
 * page's own parsed document (see PageState) and is named for what it does; the modules it calls hold
 * the rules. Cleaning for main content ("main") and for the whole page ("page") share most passes;
 * a pass with a `mode` runs in that one only.
 */
import { collapseCarousels } from "./carousels.ts";
import { normalizeText, preLineBreaks, removeNonContent } from "./clean.ts";
import type { HtmlToMarkdownOptions } from "./convert.ts";
import { removeConsentNotices } from "./extract/consent.ts";
import { removeDialogs } from "./extract/dialogs.ts";
import { removeFillerText } from "./extract/filler.ts";
import { extractMainContent, type MainContentStatus } from "./extract/index.ts";
import { removeLogoWalls } from "./extract/logo-walls.ts";
import { type PageHints, type PageType, readHints } from "./extract/page-type.ts";
import { emailForms, removeSignupBoxes } from "./extract/signup-boxes.ts";
import { removeNavigationChrome, removeNeverContent } from "./extract/whole-page.ts";
import { collapseSpaces, parseDocument } from "./parse.ts";
import { excludeElements, includeElements } from "./selectors.ts";
import { convertInPlace, createService } from "./service.ts";
import { normalizeTables } from "./tables.ts";
import { tidyMarkdown } from "./tidy.ts";
import { absolutizeUrls, resolveBaseUrl } from "./urls.ts";

/** Cleaning for main-content extraction, or for the whole page. */
export type PassMode = "main" | "page";

/** One page on its way through the passes; they read it and fill it in. */
export interface PageState {
  readonly opts: HtmlToMarkdownOptions;
  readonly mode: PassMode;
  readonly document: Document;
  /** What is converted: the document's element, then the main content once extracted. */
  root: Element;
  /** The <body> (else the root) once remove-non-content has run; the root before. */
  body: Element;
  title?: string;
  baseHref?: string;
  /** What the page's head and URL say of its type (main only). */
  hints?: PageHints;
  /** Forms with an e-mail field, found before cleaning removes the inputs (main only). */
  signups: Element[];
  mainContent?: MainContentStatus;
  /** The fallback to the whole page was cleaned by extraction itself: the passes go on with it. */
  cleanedInPlace?: boolean;
  pageType?: PageType;
  markdown: string;
}

export interface Pass {
  readonly name: string;
  /** Runs only when cleaning in this mode; in both when absent. */
  readonly mode?: PassMode;
  run(page: PageState): void;
}

/** The page parsed, before any pass; undefined when it has no document element. */
export function startPage(html: string, opts: HtmlToMarkdownOptions, mode: PassMode): PageState | undefined {
  const document = parseDocument(html);
  const root = document.documentElement;
  if (!root) return undefined;
  return { opts, mode, document, root, body: root, signups: [], markdown: "" };
}

/** Runs `passes` in order, those of the page's mode; stops when extraction falls back to the whole page. */
export function runPasses(page: PageState, passes: readonly Pass[] = PASSES): void {
  for (const pass of passes) {
    if (pass.mode && pass.mode !== page.mode) continue;
    pass.run(page);
    if (page.mainContent === "fallback_whole_page" && !page.cleanedInPlace) return;
  }
}

const service = createService();

export const EXTRACT_MAIN_CONTENT: Pass = {
  name: "extract-main-content",
  mode: "main",
  run(page) {
    const main = extractMainContent(page.root, {
      ...(page.hints ? { hints: page.hints } : {}),
      ...(page.opts.pageType ? { pageType: page.opts.pageType } : {}),
    });
    page.root = main.root;
    page.cleanedInPlace = main.status === "page_cleaned";
    page.mainContent = main.status === "page_cleaned" ? "fallback_whole_page" : main.status;
    page.pageType = main.pageType;
  },
};

export const PASSES: readonly Pass[] = [
  // Before cleaning: the JSON-LD that says what the page is goes with the scripts.
  {
    name: "read-page-hints",
    mode: "main",
    run: (page) => {
      page.hints = readHints(page.document, page.opts.baseUrl);
    },
  },
  // Before cleaning too: inputs go with it, and an e-mail field is what tells a sign-up form.
  {
    name: "find-email-forms",
    mode: "main",
    run: (page) => {
      page.signups = emailForms(page.root);
    },
  },
  {
    name: "remove-non-content",
    run: (page) => {
      const meta = removeNonContent(page.root);
      const title =
        meta.title ?? (collapseSpaces(page.root.querySelector("h1")?.textContent ?? "") || undefined);
      if (title) page.title = title;
      if (meta.baseHref) page.baseHref = meta.baseHref;
      page.body = page.root.querySelector("body") ?? page.root;
    },
  },
  { name: "remove-consent-notices", run: (page) => removeConsentNotices(page.body) },
  {
    name: "exclude-tags",
    run: (page) => {
      if (page.opts.excludeTags?.length) excludeElements(page.body, page.opts.excludeTags);
    },
  },
  {
    name: "include-tags",
    run: (page) => {
      if (page.opts.includeTags?.length) includeElements(page.body, page.opts.includeTags);
    },
  },
  { name: "remove-dialogs", mode: "main", run: (page) => removeDialogs(page.body) },
  { name: "remove-filler-text", mode: "main", run: (page) => removeFillerText(page.body) },
  { name: "remove-signup-boxes", mode: "main", run: (page) => removeSignupBoxes(page.signups, page.body) },
  { name: "remove-never-content", mode: "page", run: (page) => removeNeverContent(page.body) },
  {
    name: "remove-navigation-chrome",
    mode: "page",
    run: (page) => {
      // What the caller picked with includeTags stays, chrome or not.
      if (!page.opts.includeTags?.length) removeNavigationChrome(page.body);
    },
  },
  // Falls back to the whole page when nothing credible is found; the page is then parsed again and
  // cleaned as a whole page (htmlToMarkdown), as extraction may have pruned the tree before giving up.
  EXTRACT_MAIN_CONTENT,
  {
    name: "remove-logo-walls",
    run: (page) => {
      if (page.opts.onlyMainContent) removeLogoWalls(page.root);
    },
  },
  {
    name: "absolutize-urls",
    run: (page) => absolutizeUrls(page.root, resolveBaseUrl(page.baseHref, page.opts.baseUrl)),
  },
  { name: "pre-line-breaks", run: (page) => preLineBreaks(page.root) },
  { name: "normalize-text", run: (page) => normalizeText(page.root) },
  { name: "normalize-tables", run: (page) => normalizeTables(page.root) },
  { name: "collapse-carousels", run: (page) => collapseCarousels(page.root) },
  {
    name: "turndown",
    run: (page) => {
      page.markdown = convertInPlace(service, page.root as HTMLElement);
    },
  },
  {
    name: "tidy-markdown",
    run: (page) => {
      // The main content is what a reader sees once: a copy made for another screen or a hover is not.
      page.markdown = tidyMarkdown(page.markdown, page.opts.onlyMainContent === true);
    },
  },
];
