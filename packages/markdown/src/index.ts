export {
  type HtmlToMarkdownOptions,
  type HtmlToMarkdownResult,
  htmlToMarkdown,
  type MainContentStatus,
  type PageType,
} from "./convert.ts";
export { PAGE_TYPES } from "./extract/page-type.ts";
export {
  DEFAULT_TIME_BUDGET_MS,
  MarkdownPool,
  type MarkdownPoolOptions,
  type PooledMarkdownResult,
  sharedMarkdownPool,
} from "./pool.ts";
export { MarkdownOptionError } from "./selectors.ts";
export { htmlToText, htmlToTextAsync } from "./text-only.ts";
