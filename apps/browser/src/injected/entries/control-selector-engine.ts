import { cssPathOf } from "../lib/css-path.ts";
import { SETTLE_GLOBAL } from "../lib/globals.ts";

/*
 * A Playwright selector engine (registered with contentScript: true, so it runs in Playwright's utility
 * world, where each element its latest AI snapshot gave a ref carries `_ariaRef`). It answers through
 * the text of a detached element; nothing is added to the page's document.
 *
 * The body is either the wanted refs (`e3,e7`) or `roles:<max>:<role>,<role>...[:<youngMs>]`: every
 * element the latest snapshot gave a ref with one of those roles, at most `max` of them. The answer is
 * `{ selectors, title }`, and with `youngMs` the page's settle state too, read from the page's own world
 * at the same moment (a MouseEvent named SETTLE_GLOBAL whose relatedTarget receives it; see settle-init).
 */

interface AriaMarked extends Element {
  _ariaRef?: { ref?: string; role?: string };
}

function stateOf(youngMs: number): unknown {
  const out = document.createElement("div");
  window.dispatchEvent(new MouseEvent(SETTLE_GLOBAL, { detail: youngMs, relatedTarget: out }));
  const text = out.getAttribute("data-state");
  return text ? JSON.parse(text) : null;
}

function selectorsOf(root: Node, body: string): Element {
  const text = String(body);
  const byRole = text.startsWith("roles:");
  const [, maxText = "0", roleList = "", youngText] = byRole ? text.split(":") : [];
  const roles = new Set(byRole ? roleList.split(",") : []);
  const wanted = new Set(byRole ? [] : text.split(",").filter(Boolean));
  const out: Record<string, string> = {};
  let left = byRole ? Number(maxText) : wanted.size;
  const stack: Node[] = [root];
  while (stack.length && left > 0) {
    const node = stack.pop() as AriaMarked | ShadowRoot;
    const aria = (node as AriaMarked)._ariaRef;
    const ref = aria?.ref;
    if (ref && !(ref in out) && (byRole ? roles.has(aria.role ?? "") : wanted.has(ref))) {
      try {
        out[ref] = cssPathOf(node as Element);
      } catch {}
      left--;
    }
    if ((node as Element).shadowRoot) stack.push((node as Element).shadowRoot!);
    for (let c = (node as Element | ShadowRoot).lastElementChild; c; c = c.previousElementSibling)
      stack.push(c);
  }
  const answer = document.createElement("div");
  const state = youngText ? stateOf(Number(youngText)) : undefined;
  answer.textContent = JSON.stringify({ selectors: out, title: document.title, state });
  return answer;
}

/** Playwright calls this once per frame and keeps the engine it returns. */
export default function controlSelectorEngine() {
  return {
    query: (root: Node, body: string) => selectorsOf(root, body),
    queryAll: (root: Node, body: string) => [selectorsOf(root, body)],
  };
}
