import { aimAt, isDone, releaseTarget } from "../lib/overlays/click-target.ts";
import { BUTTONS, bestButton } from "../lib/overlays/consent-buttons.ts";
import { attrText, consentTest, knownConsentRoots } from "../lib/overlays/consent-containers.ts";
import type { ButtonKind } from "../lib/overlays/consent-rules.ts";
import { deepAll, depth } from "../lib/overlays/flat-tree.ts";
import {
  appShellTest,
  coverage,
  coversSomething,
  DIALOG_WORDS,
  DIALOGS,
  hider,
} from "../lib/overlays/hide-covers.ts";
import { HIDDEN_MARK } from "../lib/overlays/overlay-marks.ts";
import { pageView } from "../lib/overlays/page-view.ts";
import { undoInert, undoScrollLock } from "../lib/overlays/scroll-unlock.ts";
import { topLayers } from "../lib/overlays/top-layers.ts";

/*
 * One pass of clearOverlays (page/overlays.ts), run in a frame: finds a consent button to click, else
 * the visible consent frames to search, else hides what blocks the page and undoes a scroll lock left
 * behind. Marks: lib/overlay-marks.ts.
 */

export interface PassArgs {
  /** "frame": the document is a consent frame; look for its buttons only. */
  mode: "main" | "frame";
  allowClick: boolean;
  /** Consent frames were dealt with already (or cannot be): hide them. */
  framesDone: boolean;
  /** Something was clicked before this pass (a scroll lock left behind is then undone). */
  acted: boolean;
  token: string;
  /** Date.now() past which a pass that starts late (a busy page) does nothing: nobody awaits it. */
  deadline: number;
}

export interface PassTarget {
  name: string;
  kind: ButtonKind;
}

export interface PassFrame {
  name: string;
  src: string;
}

export interface PassResult {
  /** Marked with data-bf-overlay-target=token; a navigation guard is installed until the next pass. */
  target?: PassTarget;
  frames?: PassFrame[];
  hidden: number;
  unlocked: number;
}

export default function overlayPass(a: PassArgs): PassResult {
  const out: PassResult = { hidden: 0, unlocked: 0 };
  if (Date.now() > a.deadline) return out;
  // The previous click's navigation guard and target mark end here.
  releaseTarget();

  const view = pageView();
  if (!view) return out;
  const { root, body, vh } = view;
  const aim = (el: HTMLElement, kind: ButtonKind, container: Element, name: string): PassResult => {
    aimAt(el, container, a.token);
    out.target = { name, kind };
    return out;
  };

  // 1. Known CMPs, by their own markup.
  const knownRoots = new Map<Element, string>();
  for (const [r, cmp] of knownConsentRoots(view, knownRoots)) {
    if (!a.allowClick || isDone(r)) continue;
    const pick =
      bestButton(
        view,
        cmp.reject.flatMap((s) => deepAll(r, s)),
        true,
      ) ??
      bestButton(
        view,
        cmp.accept.flatMap((s) => deepAll(r, s)),
        true,
      ) ??
      bestButton(view, deepAll(r, BUTTONS), false);
    if (!pick) continue;
    // A known button's kind comes from its selector; its text only vetoes (unsafe).
    const kind = cmp.reject.some((s) => pick.el.matches(s))
      ? "reject"
      : cmp.accept.some((s) => pick.el.matches(s))
        ? "accept"
        : pick.kind;
    return aim(pick.el, kind, r, cmp.name);
  }

  // In a consent frame the whole document is the dialog.
  if (a.mode === "frame") {
    if (!a.allowClick || isDone(root)) return out;
    const pick = bestButton(view, deepAll(view.doc, BUTTONS), false);
    return pick ? aim(pick.el, pick.kind, root, "consent-frame") : out;
  }

  const consentish = consentTest(knownRoots);
  const appShell = appShellTest(body);
  const { hide: hideEl, isHidden } = hider(a.token);
  const hide = (el: Element) => {
    hideEl(el);
    out.hidden++;
  };

  // 2. What sits on top of the page, found again after each round of hiding (what lay beneath
  // comes up).
  for (let round = 0; round < 3; round++) {
    const { layered, frames } = topLayers(view, isHidden);

    // 3. A generic consent banner: fixed or sticky, consent words, a reject/accept/close button.
    if (a.allowClick) {
      for (const el of layered) {
        if (isDone(el) || isHidden(el) || !view.shown(el) || !consentish(el)) continue;
        const pick = bestButton(view, deepAll(el, BUTTONS), false);
        if (pick && !appShell(el)) return aim(pick.el, pick.kind, el, "generic-consent");
      }
    }
    if (!a.framesDone && frames.length > 0) {
      out.frames = frames.map((f) => ({
        name: (f as HTMLIFrameElement).name || f.id,
        src: (f as HTMLIFrameElement).src,
      }));
      return out;
    }

    // 4. Hide what still blocks the page, outermost first.
    const before = out.hidden;
    const candidates = Array.from(new Set([...knownRoots.keys(), ...frames, ...layered]))
      .map((el) => ({ el, d: depth(el) }))
      .sort((x, y) => x.d - y.d)
      .map((c) => c.el);
    let backdropHidden = false;
    for (const el of candidates) {
      if (el === root || el === body || el.hasAttribute(HIDDEN_MARK) || isHidden(el) || !view.shownDeep(el))
        continue;
      const layer = view.layerOf(el);
      const r = el.getBoundingClientRect();
      let why = "";
      if (knownRoots.has(el) || frames.includes(el)) why = "consent";
      else if (el.tagName === "DIALOG" && el.matches(":modal")) why = "modal";
      else if (layer && consentish(el)) why = "consent";
      else if (
        layer &&
        layer !== "sticky" &&
        coverage(view, r) >= 0.5 &&
        coversSomething(view, isHidden, el, r)
      )
        why = "cover";
      if (!why || appShell(el)) continue;
      hide(el);
      if (why !== "consent") backdropHidden = true;
    }
    // The dialog of a backdrop just hidden, when it is not inside it.
    if (backdropHidden) {
      for (const el of candidates) {
        if (el.hasAttribute(HIDDEN_MARK) || isHidden(el) || !view.shown(el) || view.layerOf(el) === "sticky")
          continue;
        const r = el.getBoundingClientRect();
        if (r.top <= 1 && r.height < 0.2 * vh) continue;
        if (!(el.matches(DIALOGS) || el.querySelector(DIALOGS) || DIALOG_WORDS.test(attrText(el)))) continue;
        if (!appShell(el)) hide(el);
      }
    }
    if (out.hidden === before) break;
  }

  // 5. A scroll lock left behind (overflow hidden on html/body, a fixed body), and page content a
  // modal made inert or aria-hidden.
  out.unlocked += undoScrollLock(view, a.acted || out.hidden > 0, a.token);
  if (out.hidden > 0) out.unlocked += undoInert(view, isHidden, a.token);
  return out;
}
