/**
 * A card's picture whose alt text repeats the card's own title ("Trail Runner 7" under a photo alt
 * "Trail Runner 7") says it twice in the markdown. The picture stays; its alt text goes where the
 * same words are visible next to it, where it is the visible title told at length ("Trail Runner 7,
 * blue upper, side view" beside the title link "Trail Runner 7"), and where it only repeats the page's
 * headline.
 */
import { walkElements } from "../dom.ts";
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
const TITLE_TAGS = new Set(["A", "H2", "H3", "H4", "H5", "H6"]);
/** How far up from a picture (or from its link) its card may end: its box, link, figure, card. */
const CARD_REACH = 5;
/** Text a card holds at most, for its title to name the picture's subject. */
const CARD_CHARS = 400;
/** Text around a thumbnail's link searched at most for a titled link to the same target (a card with its summary). */
const THUMB_CHARS = 2000;

const targetOf = (link: Element) => link.getAttribute("href")?.replace(/\/$/, "");

/**
 * Whether the picture's card names what the alt text describes: a link or heading in the card (at most
 * CARD_CHARS of text) whose title the alt text tells at length ("Trail Runner 7, blue upper, side view"
 * beside "Trail Runner 7"), or, for a picture inside a link, a titled link beside it to the same target:
 * a card's thumbnail, named by the card's title; its alt text describes the photo, not the item. Each
 * level up only reads what the level below did not.
 */
function namedByCard(img: Element, alt: string, textOf: (el: Element) => string): boolean {
  const altWords = new Set(wordsOf(alt));
  let link: Element | null = img.parentElement;
  while (link && !(link.nodeName === "A" && link.hasAttribute("href"))) link = link.parentElement;
  const target = link ? targetOf(link) : undefined;
  const thumbnail = target !== undefined && target !== "" && !target.startsWith("#");
  let retell = true;
  let aboveLink = link ? -1 : Number.POSITIVE_INFINITY;
  let below: Element = img;
  for (let up = img.parentElement, i = 0; up; below = up, up = up.parentElement, i++) {
    if (below === link) aboveLink = 0;
    else if (aboveLink >= 0) aboveLink++;
    const text = textOf(up);
    if (i >= CARD_REACH || text.length > CARD_CHARS) retell = false;
    const matchTarget = thumbnail && aboveLink >= 0 && aboveLink < CARD_REACH && text.length <= THUMB_CHARS;
    if (!retell && !matchTarget) {
      // Text only grows upward; only a link not reached yet can still be matched.
      if (!thumbnail || aboveLink >= 0 || text.length > THUMB_CHARS) return false;
      continue;
    }
    if (!text) continue;
    let found = false;
    walkElements(up, (el) => {
      if (found || el === below || el.nodeName === "TEMPLATE") return false;
      if (!TITLE_TAGS.has(el.nodeName)) return true;
      const own = wordsOf(el.textContent ?? "");
      if (own.length < 2) return true;
      if (retell && own.filter((w) => altWords.has(w)).length >= TITLE_IN_ALT * own.length) found = true;
      else if (matchTarget && el.nodeName === "A" && el.hasAttribute("href") && targetOf(el) === target)
        found = true;
      return !found;
    });
    if (found) return true;
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
    if (el.getAttribute("alt") && namedByCard(el, alt, textOf)) el.setAttribute("alt", "");
    return false;
  });
}
