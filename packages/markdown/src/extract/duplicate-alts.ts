/**
 * A card's picture whose alt text repeats the card's own title ("Trail Runner 7" under a photo alt
 * "Trail Runner 7") says it twice in the markdown. The picture stays; its alt text goes where the
 * same words are visible next to it, where it is the visible title told at length ("Trail Runner 7,
 * blue upper, side view" beside the title link "Trail Runner 7"), and where it only repeats the page's
 * headline.
 */
import { linksUnder, walkElements } from "../dom.ts";
import { collapseSpaces } from "../parse.ts";

const normalize = (text: string) => collapseSpaces(text).toLowerCase();
/** How far up from the picture its title may sit: the link, the figure, the card. */
const REACH = 3;

const WORD = /[\p{L}\p{N}]+/gu;
const wordsOf = (text: string) => normalize(text).match(WORD) ?? [];
/** An alt text with no more than this share of words beyond the page's headline only names what the page is about. */
const BEYOND_HEADLINE = 0.3;

/**
 * The words of the page's headline: its first <h1>, in the content or else on the page. A product's
 * gallery names the product in every picture ("Alt view image 3 of 17 - ASUS ROG Strix ...").
 */
function headlineWords(container: Element): Set<string> {
  const h1 = container.querySelector("h1") ?? container.ownerDocument?.querySelector("h1");
  return new Set(wordsOf(h1?.textContent ?? ""));
}

/** A title whose words an alt text holds at least this share of names the same item. */
const TITLE_IN_ALT = 0.75;
const TITLES = "a, h2, h3, h4, h5, h6";

/** Whether a link or heading in `card` (not the picture's own link) has a title the alt text tells at length. */
function retellsTitle(alt: string[], card: Element, img: Element): boolean {
  const words = new Set(alt);
  for (const title of card.querySelectorAll(TITLES)) {
    if (title.contains(img)) continue;
    const own = wordsOf(title.textContent ?? "");
    if (own.length < 2) continue;
    if (own.filter((w) => words.has(w)).length >= TITLE_IN_ALT * own.length) return true;
  }
  return false;
}

/** How far up from a picture its card may end (picture, its box, link, figure, card), and how much text a card holds. */
const CARD_REACH = 5;
const CARD_CHARS = 400;

function retellsCardTitle(img: Element, alt: string, textOf: (el: Element) => string): boolean {
  const words = wordsOf(alt);
  let up = img.parentElement;
  for (let i = 0; i < CARD_REACH && up; i++, up = up.parentElement) {
    const text = textOf(up);
    if (text.length > CARD_CHARS) return false;
    if (text && retellsTitle(words, up, img)) return true;
  }
  return false;
}

/**
 * A picture inside a link whose target a titled link beside it opens too: a card's thumbnail, named by
 * the card's title; its alt text describes the photo, not the item.
 */
function isTitledThumbnail(img: Element): boolean {
  const link = img.closest("a[href]");
  const target = link?.getAttribute("href")?.replace(/\/$/, "");
  if (!link || !target || target.startsWith("#")) return false;
  let up = link.parentElement;
  for (let i = 0; i < CARD_REACH && up; i++, up = up.parentElement) {
    for (const other of linksUnder(up)) {
      if (other === link || other.contains(img) || other.getAttribute("href")?.replace(/\/$/, "") !== target)
        continue;
      if (wordsOf(other.textContent ?? "").length >= 2) return true;
    }
  }
  return false;
}

/** What an image service guessed from the pixels ("May include: a brown leather wallet ..."), not what an author wrote. */
const MACHINE_ALT = /^(?:may include|image may contain|may be an? (?:image|photo|graphic|illustration) of)\b/;

/** Nodes looked at between two pictures before they count as apart. */
const BETWEEN_STEPS = 2000;

/** Whether visible text stands between `from` and the later `to` (a gallery's photo and its zoomed copy have none). */
function textBetween(from: Node, to: Node): boolean {
  let node: Node | null = from;
  for (let steps = 0; steps < BETWEEN_STEPS; steps++) {
    let next: Node | null = node !== from ? node.firstChild : null;
    for (let up: Node | null = node; !next && up; up = up.parentNode) next = up.nextSibling;
    node = next;
    if (!node || node === to) return false;
    if (node.nodeType === 3 && /\S/.test(node.nodeValue ?? "")) return true;
  }
  return true;
}

function onlyNamesHeadline(alt: string, headline: Set<string>): boolean {
  if (headline.size < 3) return false;
  const words = wordsOf(alt);
  if (words.length < 3) return false;
  const beyond = words.filter((w) => !headline.has(w)).length;
  return beyond <= BEYOND_HEADLINE * words.length;
}

export function dropRepeatedAlts(container: Element): void {
  const headline = headlineWords(container);
  // Pictures share ancestors (a gallery's many photos under one card); each is read once.
  const texts = new Map<Element, string>();
  const textOf = (el: Element) => {
    let text = texts.get(el);
    if (text === undefined) {
      text = normalize(el.textContent ?? "");
      texts.set(el, text);
    }
    return text;
  };
  const lastWithAlt = new Map<string, Element>();
  walkElements(container, (el) => {
    if (el.nodeName !== "IMG") return true;
    const alt = normalize(el.getAttribute("alt") ?? "");
    if (alt.length < 3) return false;
    const before = lastWithAlt.get(alt);
    lastWithAlt.set(alt, el);
    if (before && !textBetween(before, el)) {
      el.setAttribute("alt", "");
      return false;
    }
    if (MACHINE_ALT.test(alt) || onlyNamesHeadline(alt, headline)) {
      el.setAttribute("alt", "");
      return false;
    }
    let up = el.parentElement;
    for (let i = 0; i < REACH && up && up !== container.parentElement; i++, up = up.parentElement) {
      if (textOf(up).includes(alt)) {
        el.setAttribute("alt", "");
        break;
      }
    }
    if (el.getAttribute("alt") && (retellsCardTitle(el, alt, textOf) || isTitledThumbnail(el)))
      el.setAttribute("alt", "");
    return false;
  });
}
