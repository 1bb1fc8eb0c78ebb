/**
 * A card's picture whose alt text repeats the card's own title ("Trail Runner 7" under a photo alt
 * "Trail Runner 7") says it twice in the markdown. The picture stays; its alt text goes where the
 * same words are visible next to it.
 */
import { walkElements } from "../dom.ts";
import { collapseSpaces } from "../parse.ts";

const normalize = (text: string) => collapseSpaces(text).toLowerCase();
/** How far up from the picture its title may sit: the link, the figure, the card. */
const REACH = 3;

export function dropRepeatedAlts(container: Element): void {
  walkElements(container, (el) => {
    if (el.nodeName !== "IMG") return true;
    const alt = normalize(el.getAttribute("alt") ?? "");
    if (alt.length < 3) return false;
    let up = el.parentElement;
    for (let i = 0; i < REACH && up && up !== container.parentElement; i++, up = up.parentElement) {
      if (normalize(up.textContent ?? "").includes(alt)) {
        el.setAttribute("alt", "");
        break;
      }
    }
    return false;
  });
}
