import { strikethrough, tables, taskListItems } from "@joplin/turndown-plugin-gfm";
import TurndownService from "turndown";
import { addContentRules } from "./rules.ts";
import { addTableRules } from "./table-rules.ts";

export function createService(): TurndownService {
  const service = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    emDelimiter: "_",
    strongDelimiter: "**",
    linkStyle: "inlined",
    hr: "---",
    // Hard breaks would need trailing spaces, which the output tidy-up strips.
    br: "",
  });
  service.use([strikethrough, tables, taskListItems]);
  // Rules added later are consulted first, so these override the ones above.
  addContentRules(service);
  addTableRules(service);
  return service;
}

/**
 * Converts `root` in place. Turndown deep-clones any node it is given; the
 * document is private to this conversion, so hand it an object whose
 * cloneNode returns the root itself. That saves a full copy of the page and
 * keeps what the pre-passes attached to the nodes (see tables.ts, clean.ts).
 */
export function convertInPlace(service: TurndownService, root: HTMLElement): string {
  const input = { nodeType: 1, cloneNode: () => root };
  return service.turndown(input as unknown as HTMLElement);
}
