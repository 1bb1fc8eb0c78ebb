import type TurndownService from "turndown";
import { codeLanguage, fencedBlock } from "./code.ts";

const toOneLine = (text: string) => text.replace(/\s*\n+\s*/g, " ").trim();

function escapeLinkDestination(href: string): string {
  const escaped = href.replace(/([<>()])/g, "\\$1");
  return escaped.includes(" ") ? `<${escaped}>` : escaped;
}

// Position of each <li> among its siblings, computed once per list rather than per item.
const itemIndex = new WeakMap<Element, number>();
function indexInList(li: Element): number {
  let index = itemIndex.get(li);
  if (index === undefined) {
    Array.from(li.parentElement?.children ?? [li]).forEach((el, i) => {
      itemIndex.set(el, i);
    });
    index = itemIndex.get(li) ?? 0;
  }
  return index;
}

/** Rules that replace or extend turndown's defaults for block and inline content. */
export function addContentRules(service: TurndownService): void {
  // Also covers the plugin's highlightedCodeBlock case (not registered): the
  // language may sit on <code>, <pre> or a highlighter wrapper around <pre>.
  service.addRule("preformatted", {
    filter: "pre",
    replacement: (_content, node) => fencedBlock(node.textContent ?? "", codeLanguage(node)),
  });

  service.addRule("heading", {
    filter: ["h1", "h2", "h3", "h4", "h5", "h6"],
    replacement: (content, node) => {
      const text = toOneLine(content);
      return text ? `\n\n${"#".repeat(Number(node.nodeName.charAt(1)))} ${text}\n\n` : "";
    },
  });

  /** A link's whole label in escaped brackets, with no other bracket inside. */
  const BRACKETED_LABEL = /^\\\[([^[\]\\]+)\\\]$/;

  service.addRule("link", {
    filter: (node) => node.nodeName === "A" && !!node.getAttribute("href"),
    replacement: (content, node) => {
      // Card-style links wrap headings and paragraphs: one line each, and a paragraph of its own (as the
      // browser shows such a block), so that cards side by side do not run together on one line.
      const block = content.includes("\n");
      const text = content
        .split("\n")
        .map((line) => line.trim().replace(/^#{1,6}\s+/, ""))
        .filter(Boolean)
        .join(" ");
      if (!text) return "";
      const href = escapeLinkDestination(node.getAttribute("href") ?? "");
      const title = toOneLine(node.getAttribute("title") ?? "").replace(/"/g, '\\"');
      const link = (label: string) => `[${label}](${href}${title ? ` "${title}"` : ""})`;
      // A label in brackets ("[1]", "[source]", "[edit]") reads the same with its brackets outside the
      // link, where readers that find links by the first "]" do not take the label's own for the end.
      const bracketed = BRACKETED_LABEL.exec(text);
      const out = bracketed ? `\\[${link(bracketed[1] as string)}\\]` : link(text);
      return block ? `\n\n${out}\n\n` : out;
    },
  });

  // Same as turndown's, but with "- " / "1. " instead of "-   " / "1.  ".
  service.addRule("listItem", {
    filter: "li",
    replacement: (content, node) => {
      const list = node.parentElement;
      let prefix = "- ";
      if (list?.nodeName === "OL") {
        const start = Number.parseInt(list.getAttribute("start") ?? "", 10);
        prefix = `${(Number.isFinite(start) ? start : 1) + indexInList(node)}. `;
      }
      const isParagraph = /\n$/.test(content);
      const body =
        content
          .replace(/^\n+/, "")
          .replace(/\n+$/, "")
          // The task-list rule emits "[x] " and the label text brings its own space.
          .replace(/^(\[[ x]\]) +/, "$1 ") + (isParagraph ? "\n" : "");
      return prefix + body.replace(/\n/g, `\n${" ".repeat(prefix.length)}`) + (node.nextSibling ? "\n" : "");
    },
  });

  // Keeps a <select>'s choices apart ("One, Two" rather than "OneTwo").
  service.addRule("option", {
    filter: "option",
    replacement: (content, node) => (node.nextElementSibling ? `${content.trim()}, ` : content.trim()),
  });

  service.addRule("definitionList", {
    filter: "dl",
    replacement: (content) => `\n\n${content}\n\n`,
  });

  service.addRule("definitionTerm", {
    filter: "dt",
    replacement: (content, node) => {
      const text = toOneLine(content);
      if (!text) return "";
      const bold = /^\*\*[\s\S]*\*\*$/.test(text) ? text : `**${text}**`;
      const afterTerm = node.previousElementSibling?.nodeName === "DT";
      return `${afterTerm ? "\n" : "\n\n"}${bold}\n`;
    },
  });

  // "Term\n: definition", continuation blocks indented as in Pandoc / PHP Markdown Extra.
  service.addRule("definitionDescription", {
    filter: "dd",
    replacement: (content) => {
      const text = content.replace(/^\n+/, "").replace(/\s+$/, "");
      return text ? `\n: ${text.replace(/\n/g, "\n    ")}\n` : "";
    },
  });
}
