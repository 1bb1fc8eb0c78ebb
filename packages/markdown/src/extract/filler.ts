/**
 * Text no one writes for a reader: one word repeated over and over ("word word word ..."), as scripts
 * insert to measure fonts or to reserve space, and a designer's "Lorem ipsum dolor sit amet" left in a
 * template's unused block. As the longest link-free text on a page it would pass for the content; it
 * goes with the element that holds only it.
 */

/** One word, then itself again at least this many times. */
const FILLER = /^\s*(\S{1,20})(?:\s+\1){19,}\s*$/;
const MIN_FILLER_CHARS = 100;
/** The placeholder's opening words, as layout tools and themes paste it. */
const PLACEHOLDER = /^\s*lorem ipsum dolor sit amet\b/i;
const MIN_PLACEHOLDER_CHARS = 40;

const isFiller = (text: string) =>
  (text.length >= MIN_FILLER_CHARS && FILLER.test(text)) ||
  (text.length >= MIN_PLACEHOLDER_CHARS && PLACEHOLDER.test(text));

export function removeFillerText(body: Element): void {
  const walker = body.ownerDocument.createTreeWalker(body, 4 /* NodeFilter.SHOW_TEXT */);
  const doomed: Element[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = (node as Text).data;
    if (!isFiller(text)) continue;
    const holder = node.parentElement;
    if (holder && holder !== body && (holder.textContent ?? "").length === text.length) doomed.push(holder);
    else node.textContent = "";
  }
  for (const el of doomed) el.remove();
}
