/**
 * A card's picture whose alt text repeats the card's own title ("Trail Runner 7" under a photo alt
 * "Trail Runner 7") says it twice in the markdown. The picture stays; its alt text goes where the
 * same words are visible next to it, and so does an alt text that only repeats the page's headline.
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
  walkElements(container, (el) => {
    if (el.nodeName !== "IMG") return true;
    const alt = normalize(el.getAttribute("alt") ?? "");
    if (alt.length < 3) return false;
    if (onlyNamesHeadline(alt, headline)) {
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
    return false;
  });
}
