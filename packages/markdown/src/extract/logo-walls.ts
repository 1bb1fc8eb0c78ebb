import { hasText, walkElements } from "../dom.ts";

/**
 * A wall of customers' or partners' logos ("Trusted by ..."): pictures only, each alt text a company's
 * name and "logo", often printed twice for a scrolling marquee. Main content names no one by a row of
 * pictures; the heading above the wall, which is text, stays.
 */

const LOGO_ALT = /\blogo(?:type)?s?\b/i;
/** Fewest logos that make a wall, not a partner's badge beside a text. */
const MIN_LOGOS = 4;
/** Share of a wall's described pictures that are logos: a gallery with a logo among its photos is no wall. */
const LOGO_SHARE = 0.8;

/** Pictures with an alt text: a marquee's second copy of its logos may have lost theirs as repeats. */
function described(box: Element): number {
  let n = 0;
  for (const img of box.querySelectorAll("img")) if (img.getAttribute("alt")?.trim()) n++;
  return n;
}

export function removeLogoWalls(root: Element): void {
  const logos = new Map<Element, number>();
  walkElements(root, (img) => {
    if (img.nodeName !== "IMG" || !LOGO_ALT.test(img.getAttribute("alt") ?? "")) return true;
    // The outermost element around the picture that holds no text: the logo's box, or the whole wall.
    let box: Element = img;
    for (let up = img.parentElement; up && up !== root && !hasText(up); up = up.parentElement) box = up;
    logos.set(box, (logos.get(box) ?? 0) + 1);
    return true;
  });
  for (const [box, count] of logos) {
    if (count >= MIN_LOGOS && count >= LOGO_SHARE * described(box)) box.remove();
  }
}
