/** The baseline: Mozilla Readability on a linkedom DOM, its article HTML through turndown with GFM. */
import { strikethrough, tables, taskListItems } from "@joplin/turndown-plugin-gfm";
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";

const service = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
service.use([strikethrough, tables, taskListItems]);
service.remove(["script", "style", "noscript", "template"]);

export function readabilityMarkdown(html: string, url: string): string {
  const { document } = parseHTML(html);
  // Readability resolves relative URLs against documentURI/baseURI, which linkedom leaves empty.
  try {
    Object.defineProperty(document, "documentURI", { value: url, configurable: true });
    Object.defineProperty(document, "baseURI", { value: url, configurable: true });
  } catch {
    // A read-only property: links stay relative, which scoring ignores.
  }
  const article = new Readability(document as unknown as Document).parse();
  return article?.content ? service.turndown(article.content) : "";
}
