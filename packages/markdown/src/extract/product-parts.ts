/**
 * Many shops build a product page from separate blocks (React segments, tabs, accordions): the name
 * and price in one, the description in another, the specifications in a third, reviews and rails of
 * other products between them. No one element holds the product and little else, so the product is
 * gathered from its blocks: the name's block and every section headed as a part of the product.
 */
import { textChars, walkElements } from "../dom.ts";
import { collapseSpaces } from "../parse.ts";
import { sectionOf } from "./product-sections.ts";

/** What a heading over a part of the product says. */
const PRODUCT_PART =
  /^(?:(?:product|item|full|technical|tech)\s+)?(?:description|details|specifications?|specs|features|overview|information|info|highlights|dimensions|materials?|ingredients|key features|about (?:this|the) (?:item|product)|what'?s in the box|in the box|size (?:&|and) fit|materials? (?:&|and) care|care instructions)(?:\s*(?:&|and)\s*(?:specifications?|specs|dimensions|features|care))?\s*:?$/i;

const HEADINGS = new Set(["H2", "H3", "H4", "H5", "H6"]);

/** A block holding the product's name, and so its price and offer, stays under this many characters. */
const NAME_BLOCK_CHARS = 500;
/** A part taking more than this share of the page's text is not one part of it. */
const MAX_PART_SHARE = 0.6;

/** The sections headed as parts of the product, outermost, in document order. */
function productParts(body: Element, limit: number): Element[] {
  const parts: Element[] = [];
  walkElements(body, (el) => {
    if (HEADINGS.has(el.nodeName) || el.getAttribute("role") === "heading") {
      if (PRODUCT_PART.test(collapseSpaces(el.textContent ?? ""))) {
        const section = sectionOf(el, body, limit);
        // A heading alone (a tab's label, its panel elsewhere) is no part.
        if (section !== el) parts.push(section);
      }
      return false;
    }
    return true;
  });
  return outermost(parts);
}

function outermost(els: Element[]): Element[] {
  return els.filter((el, i) => !els.some((other, j) => j !== i && other !== el && other.contains(el)));
}

function inDocumentOrder(els: Element[], body: Element): Element[] {
  const wanted = new Set(els);
  const ordered: Element[] = [];
  walkElements(body, (el) => {
    if (!wanted.has(el)) return true;
    ordered.push(el);
    return false;
  });
  return ordered;
}

/** The product's name with what sits around it (brand, price, rating), short of the page's other blocks. */
function nameBlock(h1: Element, body: Element): Element {
  let block = h1;
  for (
    let up = h1.parentElement;
    up && up !== body && textChars(up) <= NAME_BLOCK_CHARS;
    up = up.parentElement
  )
    block = up;
  return block;
}

export interface Product {
  /** A new element holding the product's blocks, when the pick alone misses some. */
  root?: Element;
  /** What to prune inside: the gathered blocks, or the pick. */
  pieces: Element[];
  /** What pruning must leave: the product's name and its parts. */
  keep: Element[];
}

/**
 * The product as the text statistics' pick (`chosen`) holds it, gathered into one new element when
 * that pick misses the product's name or parts of it.
 */
export function gatherProduct(body: Element, chosen: Element): Product {
  const h1 = body.querySelector("h1");
  const parts = productParts(body, MAX_PART_SHARE * textChars(body));
  const keep = h1 ? [h1, ...parts] : parts;
  const missing = parts.some((p) => !chosen.contains(p));
  const nameMissing = h1 !== null && !chosen.contains(h1);
  if (parts.length === 0 || (!missing && !nameMissing)) return { pieces: [chosen], keep };
  const pieces: Element[] = [...parts];
  if (h1) pieces.push(nameBlock(h1, body));
  pieces.push(chosen);
  const gathered = body.ownerDocument.createElement("div");
  const ordered = inDocumentOrder(outermost(pieces), body);
  for (const piece of ordered) gathered.appendChild(piece);
  body.appendChild(gathered);
  return { root: gathered, pieces: ordered, keep };
}
