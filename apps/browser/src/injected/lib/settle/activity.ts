import { type Book, now, touch } from "./book.ts";

/** DOM changes, as the settle bookkeeping keeps them. */
export interface DomChanges {
  /** The last DOM change of any kind, style included: nothing on the page moved since (-1: none). */
  lastChange: number;
  /** Shadow roots the page attached (each one a place typing could be seen from). */
  shadowRoots: number;
}

/**
 * Watches DOM changes in the document and in every shadow root: each is activity (`touch`) once the
 * document is parsed, except `style` attribute changes (animations); any change, style included, is
 * `lastChange`.
 */
export function watchDom(book: Book): DomChanges {
  const dom: DomChanges = { lastChange: -1, shadowRoots: 0 };
  document.addEventListener(
    "DOMContentLoaded",
    () => {
      book.domReady = true;
    },
    { once: true, capture: true },
  );

  // Any change, style included: what tells that nothing on the page moved since a moment.
  const observer = new MutationObserver((records) => {
    dom.lastChange = now();
    for (const r of records) {
      if (r.type !== "attributes" || r.attributeName !== "style") {
        touch(book);
        return;
      }
    }
  });
  const watch = (root: Node) => {
    try {
      observer.observe(root, { childList: true, subtree: true, characterData: true, attributes: true });
    } catch {}
  };
  watch(document);
  const attach = Element.prototype.attachShadow;
  if (attach) {
    Element.prototype.attachShadow = function (this: Element, init: ShadowRootInit) {
      const root = attach.call(this, init);
      dom.shadowRoots++;
      watch(root);
      return root;
    };
  }
  return dom;
}
