export interface ElementMatch {
  text: string;
  html: string;
  attributes: Record<string, string>;
  box: { x: number; y: number; width: number; height: number } | null;
}

/** Longer outerHTML is cut here, with an ellipsis. */
const MAX_HTML = 20_000;

/** Run on a locator's elements (evaluateAll): the first `max`, each as text, html, attributes and box. */
export default function describeElements(els: Element[], max: number): ElementMatch[] {
  return els.slice(0, max).map((el) => {
    const r = el.getBoundingClientRect();
    const attributes: Record<string, string> = {};
    for (const a of Array.from(el.attributes)) attributes[a.name] = a.value;
    const html = el.outerHTML;
    return {
      // innerText, not textContent: the text as rendered, without hidden parts.
      text: ((el as HTMLElement).innerText ?? el.textContent ?? "").trim(),
      html: html.length > MAX_HTML ? `${html.slice(0, MAX_HTML)}…` : html,
      attributes,
      box: r.width || r.height ? { x: r.x, y: r.y, width: r.width, height: r.height } : null,
    };
  });
}
