/**
 * Image carousels: a run of three or more siblings that each show one picture of the same thing (alt
 * texts alike but for a counter, "Camp Stove 0", "Camp Stove 1"..., or each the first one's name and a
 * view of it: "Camp Stove", "Camp Stove side view", "Camp Stove (Blue)"). A product grid repeats one
 * per card, which buries the cards' text under copies of their names; the first picture stays.
 */
import { walkElements } from "./dom.ts";

const MIN_SLIDES = 3;
/** A name this short ("Logo", "Photo") says too little to tell that two pictures show one thing. */
const MIN_NAME_CHARS = 8;

/** The alt text of the one image `el` is or holds, without a trailing counter; undefined otherwise. */
function slideAlt(el: Element): string | undefined {
  let image: Element | undefined = el;
  if (el.nodeName !== "IMG") {
    const images = el.querySelectorAll("img");
    if (images.length !== 1 || (el.textContent ?? "").trim() !== "") return undefined;
    image = images[0];
  }
  const alt = image
    ?.getAttribute("alt")
    ?.replace(/[\s\d#:-]+$/, "")
    .trim();
  return alt || undefined;
}

/** Whether a slide's alt text shows the thing `name` names: the same name, or the name and more. */
function sameThing(alt: string | undefined, name: string): boolean {
  if (alt === undefined) return false;
  if (alt === name) return true;
  return (
    name.length >= MIN_NAME_CHARS &&
    alt.toLowerCase().startsWith(name.toLowerCase()) &&
    /^[\s(,:-]/.test(alt.slice(name.length))
  );
}

export function collapseCarousels(root: Element): void {
  const doomed: Element[] = [];
  walkElements(root, (el) => {
    if (el.childElementCount < MIN_SLIDES) return true;
    const first = el.firstElementChild as Element;
    const alt = slideAlt(first);
    if (!alt) return true;
    const rest: Element[] = [];
    for (let c = first.nextElementSibling; c; c = c.nextElementSibling) {
      if (!sameThing(slideAlt(c), alt)) return true;
      rest.push(c);
    }
    doomed.push(...rest);
    return false;
  });
  for (const el of doomed) el.remove();
}
