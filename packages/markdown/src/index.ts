import { normalizeText, preLineBreaks, removeNonContent } from "./clean.ts";
import { collapseSpaces, parseDocument } from "./parse.ts";
import { convertInPlace, createService } from "./service.ts";
import { normalizeTables } from "./tables.ts";
import { tidyMarkdown } from "./tidy.ts";
import { absolutizeUrls, resolveBaseUrl } from "./urls.ts";

export interface HtmlToMarkdownOptions {
  /** Final URL of the page; relative links and images resolve against it (or the document's <base href>). */
  baseUrl: string;
}

export interface HtmlToMarkdownResult {
  markdown: string;
  /** The document <title>, else the first <h1>; absent when neither has text. */
  title?: string;
}

const service = createService();

export function htmlToMarkdown(html: string, opts: HtmlToMarkdownOptions): HtmlToMarkdownResult {
  const document = parseDocument(html);
  const root = document.documentElement;
  if (!root) return { markdown: "" };

  const meta = removeNonContent(root);
  absolutizeUrls(root, resolveBaseUrl(meta.baseHref, opts.baseUrl));
  preLineBreaks(root);
  normalizeText(root);
  normalizeTables(root);
  const title = meta.title ?? collapseSpaces(root.querySelector("h1")?.textContent ?? "");

  const markdown = tidyMarkdown(convertInPlace(service, root));
  return title ? { markdown, title } : { markdown };
}
