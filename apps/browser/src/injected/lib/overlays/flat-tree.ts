/*
 * Walking the page the way it is drawn: through slots and into open shadow roots.
 */

/** The parent in the flat tree: a slot, a parent element, or the host of a shadow root. */
export function up(el: Element): Element | null {
  if (el.assignedSlot) return el.assignedSlot;
  if (el.parentElement) return el.parentElement;
  const pn = el.parentNode;
  return pn instanceof ShadowRoot ? pn.host : null;
}

/** `el` is `outer` or lies inside it (in the flat tree). */
export function within(outer: Element, el: Element): boolean {
  for (let x: Element | null = el; x; x = up(x)) if (x === outer) return true;
  return false;
}

/** How many flat-tree ancestors `el` has. */
export function depth(el: Element): number {
  let d = 0;
  for (let x = up(el); x; x = up(x)) d++;
  return d;
}

/** The elements matching `sel` in `scope` and in the open shadow roots below it (at most 60 scopes). */
export function deepAll(scope: Element | Document, sel: string): Element[] {
  const found: Element[] = [];
  const scopes: Array<Element | Document | ShadowRoot> = [scope];
  if (scope instanceof Element && scope.shadowRoot) scopes.push(scope.shadowRoot);
  for (let i = 0; i < scopes.length && i < 60; i++) {
    const s = scopes[i]!;
    found.push(...Array.from(s.querySelectorAll(sel)));
    for (const e of Array.from(s.querySelectorAll("*"))) if (e.shadowRoot) scopes.push(e.shadowRoot);
  }
  return found;
}
