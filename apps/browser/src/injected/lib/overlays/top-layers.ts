/*
 * What sits on top of the page: the fixed, sticky, high-z and open-dialog ancestors of what a grid of
 * points hits (into open shadow roots), of open dialogs and of consent frames.
 */
import { CONSENT_FRAME } from "./consent-rules.ts";
import { up } from "./flat-tree.ts";
import type { PageView } from "./page-view.ts";

const FRAME_WORDS = new RegExp(CONSENT_FRAME, "i");

export interface TopLayers {
  /** Layered elements (see PageView.layerOf) the page is painted beneath. */
  layered: Set<Element>;
  /** Shown consent iframes in a layer. */
  frames: Element[];
}

/** Found anew after each round of hiding (what lay beneath comes up); elements `isHidden` skips are left out. */
export function topLayers(view: PageView, isHidden: (el: Element) => boolean): TopLayers {
  const { doc, root, body, vw, vh } = view;
  const layered = new Set<Element>();
  const walked = new Set<Element>();
  const collect = (start: Element) => {
    for (let x: Element | null = start; x && !walked.has(x); x = up(x)) {
      walked.add(x);
      if (x !== root && x !== body && view.layerOf(x)) layered.add(x);
    }
  };
  for (const fx of [0.03, 0.2, 0.35, 0.5, 0.65, 0.8, 0.97]) {
    for (const fy of [0.03, 0.1, 0.25, 0.5, 0.75, 0.9, 0.97]) {
      const x = fx * vw;
      const y = fy * vh;
      let hit = doc.elementFromPoint(x, y);
      for (let depthLeft = 4; hit && depthLeft > 0; depthLeft--) {
        collect(hit);
        const inner: Element | null = hit.shadowRoot ? hit.shadowRoot.elementFromPoint(x, y) : null;
        hit = inner && inner !== hit ? inner : null;
      }
    }
  }
  for (const d of Array.from(doc.getElementsByTagName("dialog"))) if (d.open && view.shown(d)) collect(d);
  const frames: Element[] = [];
  for (const f of Array.from(doc.getElementsByTagName("iframe"))) {
    let where = "";
    try {
      const u = new URL(f.src, location.href);
      where = `${u.hostname}${u.pathname}`;
    } catch {
      where = "";
    }
    if (isHidden(f) || !FRAME_WORDS.test(`${f.id} ${f.name} ${where}`) || !view.shown(f)) continue;
    let onTop = false;
    for (let x: Element | null = f; x && !onTop; x = up(x))
      onTop = x !== root && x !== body && !!view.layerOf(x);
    if (onTop) {
      frames.push(f);
      collect(f);
    }
  }
  return { layered, frames };
}
