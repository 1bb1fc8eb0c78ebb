import type TurndownService from "turndown";
import { collapseSpaces } from "./parse.ts";
import { type Alignment, gfmTableOf, rawMarkers } from "./tables.ts";

const DIVIDER: Record<Alignment, string> = { "": "---", left: ":---", right: "---:", center: ":---:" };

/**
 * Rules for tables shaped by normalizeTables. They take precedence over the
 * plugin's table rules, which re-walk every table three times to decide
 * whether it must stay HTML or be skipped (about half the conversion time of
 * table-heavy pages on linkedom), need `table.rows` (linkedom has none),
 * collapse "||" into a single escaped pipe and render multi-paragraph cells
 * as "a<br><br>b". The plugin's caption/colgroup/section rules still apply.
 */
export function addTableRules(service: TurndownService): void {
  service.addRule("gfmTable", {
    filter: (node) => gfmTableOf(node) !== undefined,
    replacement: (content, node) => {
      const caption = Array.from(node.children).find((el) => el.nodeName === "CAPTION");
      const title = caption ? service.escape(collapseSpaces(caption.textContent ?? "")) : "";
      return `\n\n${title ? `${title}\n\n` : ""}${content.replace(/\n+/g, "\n").trim()}\n\n`;
    },
  });

  service.addRule("gfmTableRow", {
    filter: (node) => node.nodeName === "TR" && gfmTableOf(node.parentElement?.parentElement) !== undefined,
    replacement: (content, node) => {
      const section = node.parentElement;
      const align = gfmTableOf(section?.parentElement);
      if (section?.nodeName !== "THEAD" || !align) return `\n${content}`;
      return `\n${content}\n| ${align.map((a) => DIVIDER[a]).join(" | ")} |`;
    },
  });

  service.addRule("gfmTableCell", {
    filter: (node) =>
      (node.nodeName === "TD" || node.nodeName === "TH") &&
      gfmTableOf(node.parentElement?.parentElement?.parentElement) !== undefined,
    replacement: (content, node) => {
      const text = content
        .trim()
        .replace(/\s*\n+\s*/g, "<br>")
        .replace(/\|/g, "\\|");
      return `${node.previousSibling ? " " : "| "}${text.padEnd(3)} |`;
    },
  });

  // List markers written into flattened cells, emitted as-is (not escaped).
  service.addRule("rawMarker", {
    filter: (node) => rawMarkers.has(node),
    replacement: (_content, node) => rawMarkers.get(node) ?? "",
  });
}
