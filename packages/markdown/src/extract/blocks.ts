/**
 * Text blocks: the inline text each block-level element holds directly (not through a nested block),
 * as boilerpipe and jusText see a page. One iterative pass over the tree, so deep pages cannot overflow
 * the stack.
 */

import { walkTree } from "../dom.ts";

/** Elements that start a new text block; everything else is inline and belongs to the enclosing block. */
const BLOCK_TAGS = new Set([
  "ADDRESS",
  "ARTICLE",
  "ASIDE",
  "BLOCKQUOTE",
  "BODY",
  "CAPTION",
  "CENTER",
  "DD",
  "DETAILS",
  "DIALOG",
  "DIV",
  "DL",
  "DT",
  "FIELDSET",
  "FIGCAPTION",
  "FIGURE",
  "FOOTER",
  "FORM",
  "H1",
  "H2",
  "H3",
  "H4",
  "H5",
  "H6",
  "HEADER",
  "HGROUP",
  "HR",
  "HTML",
  "LI",
  "MAIN",
  "MENU",
  "NAV",
  "OL",
  "P",
  "PRE",
  "SECTION",
  "SUMMARY",
  "TABLE",
  "TBODY",
  "TD",
  "TFOOT",
  "TH",
  "THEAD",
  "TR",
  "UL",
]);

export const HEADING_TAGS = new Set(["H1", "H2", "H3", "H4", "H5", "H6"]);

export interface TextBlock {
  el: Element;
  /** Non-whitespace characters of the block's own inline text. */
  chars: number;
  /** Of those, the ones inside links. */
  linkChars: number;
  /** Sentence punctuation (. , ; : ! ? and CJK full stops) in the block's own text. */
  punctuation: number;
  /** Of that punctuation, the marks outside links. */
  plainPunctuation: number;
  /** The block's own text, whitespace collapsed, when short (labels such as "Advertisement"). */
  shortText?: string;
  /** Its own text claims a copyright ("© 2024 ...", "All rights reserved"): a site's legal line. */
  legal?: boolean;
}

const LEGAL = /©|\bcopyright\b|\ball rights reserved\b/i;

export const isBlockTag = (tag: string) => BLOCK_TAGS.has(tag);

function countText(data: string, block: TextBlock, inLink: boolean): void {
  let chars = 0;
  let punctuation = 0;
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c <= 32 || c === 160) continue;
    chars++;
    // . , ; : ! ? and 。 ， ！ ？
    if (
      c === 46 ||
      c === 44 ||
      c === 59 ||
      c === 58 ||
      c === 33 ||
      c === 63 ||
      (c >= 0x3001 && c <= 0x3002)
    ) {
      punctuation++;
    } else if (c === 0xff0c || c === 0xff01 || c === 0xff1f) punctuation++;
  }
  if (chars === 0) return;
  if (!block.legal && LEGAL.test(data)) block.legal = true;
  block.chars += chars;
  block.punctuation += punctuation;
  if (inLink) block.linkChars += chars;
  else block.plainPunctuation += punctuation;
  if (block.chars <= 40) block.shortText = `${block.shortText ?? ""} ${data}`;
  else block.shortText = undefined;
}

/** Every block under `root` (and `root` itself) with its own inline text counted, in document order. */
export function collectBlocks(root: Element): TextBlock[] {
  const first: TextBlock = { el: root, chars: 0, linkChars: 0, punctuation: 0, plainPunctuation: 0 };
  const blocks: TextBlock[] = [first];
  // The blocks open around the current node, innermost last, and the links open inside the innermost.
  const open: TextBlock[] = [first];
  let block = first;
  let links = 0;
  const linksOutside: number[] = [];
  walkTree(root, {
    open(el) {
      const tag = el.nodeName;
      if (BLOCK_TAGS.has(tag)) {
        block = { el, chars: 0, linkChars: 0, punctuation: 0, plainPunctuation: 0 };
        blocks.push(block);
        open.push(block);
        linksOutside.push(links);
      } else if (tag === "A") links++;
    },
    close(el) {
      if (el === block.el && open.length > 1) {
        open.pop();
        block = open[open.length - 1] as TextBlock;
        links = linksOutside.pop() as number;
      } else if (el.nodeName === "A" && links > 0) links--;
    },
    text(node) {
      countText(node.data, block, links > 0);
    },
  });
  for (const b of blocks)
    if (b.shortText !== undefined) b.shortText = b.shortText.replace(/\s+/g, " ").trim();
  return blocks;
}
