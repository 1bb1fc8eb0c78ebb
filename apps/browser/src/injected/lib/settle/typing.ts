/**
 * What typing text into a field fires or may start, for page script to see (lower case). Key events
 * are the key press's own; focus and blur run while the field is focused, before the state is read.
 */
const TYPING = new Set([
  "beforeinput",
  "input",
  "textinput",
  "select",
  "selectstart",
  "selectionchange",
  "compositionstart",
  "compositionupdate",
  "compositionend",
  "scroll",
  "scrollend",
  "transitionrun",
  "transitionstart",
  "transitionend",
  "transitioncancel",
  "webkittransitionend",
  "animationstart",
  "animationend",
  "animationiteration",
  "animationcancel",
  "webkitanimationstart",
  "webkitanimationend",
  "webkitanimationiteration",
]);
const INLINE_TYPING = Array.from(TYPING, (t) => `[on${t}]`).join(",");

/**
 * Counts the listeners and handlers the page sets for what typing fires (never counted down:
 * conservative). The answer reads the count, plus one when the document has an inline handler for any
 * of it; Infinity when a handler property could not be watched (typing is then never taken as unseen).
 */
export function watchTyping(): () => number {
  let typingHooks = 0;
  // Proxies, so the page still sees native functions (toString, length, name).
  EventTarget.prototype.addEventListener = new Proxy(EventTarget.prototype.addEventListener, {
    apply(target, self, args) {
      if (TYPING.has(String(args[0]).toLowerCase())) typingHooks++;
      return Reflect.apply(target, self, args);
    },
  });
  const handlerOwners: object[] = [
    window,
    Window.prototype,
    Document.prototype,
    HTMLElement.prototype,
    Element.prototype,
  ];
  if (window.SVGElement) handlerOwners.push(SVGElement.prototype);
  if (window.MathMLElement) handlerOwners.push(MathMLElement.prototype);
  for (const owner of handlerOwners) {
    for (const type of TYPING) {
      const d = Object.getOwnPropertyDescriptor(owner, `on${type}`);
      if (!d?.set) continue;
      // One that cannot be watched: typing is never taken as unseen on this page.
      if (!d.configurable) {
        typingHooks = Number.POSITIVE_INFINITY;
        continue;
      }
      Object.defineProperty(owner, `on${type}`, {
        ...d,
        set: new Proxy(d.set, {
          apply(target, self, args) {
            if (args[0]) typingHooks++;
            return Reflect.apply(target, self, args);
          },
        }),
      });
    }
  }
  return () => typingHooks + (document.querySelector(INLINE_TYPING) ? 1 : 0);
}
