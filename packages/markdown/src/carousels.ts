/**
 * Image carousels: a run of three or more siblings that each show one picture of the same thing (alt
 * texts alike but for a counter, "Camp Stove 0", "Camp Stove 1"..., or each the first one's name and a
 * view of it: "Camp Stove", "Camp Stove side view", "Camp Stove (Blue)"). A product grid repeats one
 * per card, which buries the cards' text under copies of their names; the first picture stays.
 */
import { childElementsUpTo, classOf, hasText, walkElements } from "./dom.ts";

const MIN_SLIDES = 3;
/** A name this short ("Logo", "Photo") says too little to tell that two pictures show one thing. */
const MIN_NAME_CHARS = 8;

/** The alt text of the one image `el` is or holds, without a trailing counter; undefined otherwise. */
function slideAlt(el: Element): string | undefined {
  let image: Element | undefined = el;
  if (el.nodeName !== "IMG") {
    if (hasText(el)) return undefined;
    const images = el.getElementsByTagName("img");
    if (images.length !== 1) return undefined;
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

/** A class a carousel script gives the copies of slides it makes so its loop wraps around. */
const CLONE_CLASS = /^(?:[\w-]*[-_])?(?:cloned?|duplicate)$/;
/** Held by every class CLONE_CLASS matches; most class lists hold neither. */
const MAY_BE_CLONE = /clone|duplicate/;

/**
 * Slides a carousel script copied so its loop can wrap around (swiper's `swiper-slide-duplicate`,
 * slick's `slick-cloned`, owl's `cloned`, splide's and glide's `--clone`): the same slides again.
 * Only a clone that shares a class with a sibling counts, so a "duplicate" button is left alone.
 */
function isClonedSlide(el: Element): boolean {
  if (!MAY_BE_CLONE.test(classOf(el))) return false;
  const classes = el.classList;
  if (!classes || classes.length < 2 || !Array.from(classes).some((c) => CLONE_CLASS.test(c))) return false;
  const own = Array.from(classes).filter((c) => !CLONE_CLASS.test(c));
  for (const sib of [el.previousElementSibling, el.nextElementSibling])
    if (sib && own.some((c) => sib.classList.contains(c))) return true;
  return false;
}

/** Words an alt text needs before two pictures with it and one address count as one picture. */
const MIN_REPEAT_WORDS = 3;

/** Where a picture is, without its query: a gallery's thumbnail is the same file at another size. */
function pictureKey(img: Element): string | undefined {
  const alt = collapse(img.getAttribute("alt") ?? "");
  if (alt.split(" ").length < MIN_REPEAT_WORDS) return undefined;
  const src = img.getAttribute("src") ?? "";
  return `${src.replace(/[?#].*$/, "")} ${alt}`;
}

const collapse = (text: string) => text.replace(/\s+/g, " ").trim();

/** Whether `el` is one slide of a strip: it holds one picture and no text, and so do 2+ siblings. */
function isPictureSlide(el: Element): boolean {
  const parent = el.parentElement;
  if (!parent || childElementsUpTo(parent, MIN_SLIDES) < MIN_SLIDES) return false;
  let slides = 0;
  for (let c = parent.firstElementChild; c && slides < MIN_SLIDES; c = c.nextElementSibling)
    if (slideAlt(c) !== undefined || c.nodeName === "IMG") slides++;
  return slides >= MIN_SLIDES;
}

/**
 * A gallery printed twice over (its big pictures, then a strip of thumbnails of the same files) or
 * with its loop's clones says every picture's alt text two or three times. A slide whose picture,
 * file and alt text, was already shown earlier on the page goes.
 */
function dropRepeatedSlides(root: Element): void {
  const seen = new Set<string>();
  const doomed: Element[] = [];
  walkElements(root, (el) => {
    if (el.nodeName !== "IMG") return true;
    const key = pictureKey(el);
    if (!key) return false;
    if (!seen.has(key)) seen.add(key);
    else {
      // The slide is the image itself or the wrapper, up the chain of only children, in a strip.
      let slide: Element = el;
      while (
        slide.parentElement &&
        slide.parentElement !== root &&
        childElementsUpTo(slide.parentElement, 2) === 1
      )
        slide = slide.parentElement;
      if (isPictureSlide(slide)) doomed.push(slide);
    }
    return false;
  });
  for (const el of doomed) el.remove();
}

export function collapseCarousels(root: Element): void {
  const clones: Element[] = [];
  walkElements(root, (el) => {
    if (!isClonedSlide(el)) return true;
    clones.push(el);
    return false;
  });
  for (const el of clones) el.remove();
  dropRepeatedSlides(root);
  const doomed: Element[] = [];
  walkElements(root, (el) => {
    if (childElementsUpTo(el, MIN_SLIDES) < MIN_SLIDES) return true;
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
