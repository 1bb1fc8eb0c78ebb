/*
 * Picking the button to click in a consent dialog: one that neither navigates nor submits a form, whose
 * text (or a known platform's selector) says reject, else accept, else close, and never one that buys,
 * subscribes or signs up.
 */
import { classifyButtonText } from "./classify-button.ts";
import type { ButtonKind } from "./consent-rules.ts";
import type { PageView } from "./page-view.ts";

/** What counts as a button when a dialog's buttons are found by their text. */
export const BUTTONS = "button, [role=button], input[type=button], input[type=submit]";

export interface ButtonPick {
  el: HTMLElement;
  kind: ButtonKind;
}

/** What its text, value, aria-label or title says clicking it does; `unsafe` when any of them is. */
function kindOf(el: HTMLElement): ButtonKind | undefined {
  const texts = [
    el.innerText,
    el.tagName === "INPUT" ? (el as HTMLInputElement).value : "",
    el.getAttribute("aria-label") ?? "",
    el.getAttribute("title") ?? "",
  ].filter((t) => t.trim() !== "");
  const kinds = texts.map((t) => classifyButtonText(t));
  if (kinds.includes("unsafe")) return "unsafe";
  return kinds.find((k) => k !== undefined);
}

// Only buttons (or a known CMP's own elements) that neither navigate nor submit a form.
function clickable(view: PageView, el: Element, known: boolean): el is HTMLElement {
  if (!(el instanceof HTMLElement)) return false;
  const tag = el.tagName;
  const isButton =
    tag === "BUTTON" ||
    (tag === "INPUT" && /^(button|submit)$/i.test((el as HTMLInputElement).type)) ||
    el.getAttribute("role") === "button";
  if (!isButton && !known) return false;
  if ((el as HTMLButtonElement).disabled || el.getAttribute("aria-disabled") === "true") return false;
  for (const link of [el.closest("a[href]"), ...Array.from(el.querySelectorAll("a[href]"))]) {
    if (!link) continue;
    const href = (link.getAttribute("href") ?? "").trim();
    if (!(href.startsWith("#") || /^javascript:/i.test(href))) return false;
    const target = link.getAttribute("target");
    if (target && target !== "_self") return false;
  }
  if (tag === "BUTTON" || tag === "INPUT") {
    const b = el as HTMLInputElement;
    if (b.form && (b.type === "submit" || b.type === "image")) {
      const method = (b.getAttribute("formmethod") ?? b.form.getAttribute("method") ?? "").toLowerCase();
      if (method !== "dialog") return false;
    }
  }
  return view.shown(el);
}

const RANK: Record<string, number> = { reject: 0, accept: 1, close: 2 };

/**
 * The clickable button among `buttons` ranked best (reject, accept, close; the first of a rank wins).
 * `known`: they are a known CMP's own elements, clickable even when not marked up as buttons.
 */
export function bestButton(view: PageView, buttons: Element[], known: boolean): ButtonPick | undefined {
  let pick: ButtonPick | undefined;
  for (const b of buttons) {
    if (!clickable(view, b, known)) continue;
    const kind = kindOf(b);
    if (kind === undefined || kind === "unsafe") continue;
    if (!pick || RANK[kind]! < RANK[pick.kind]!) pick = { el: b, kind };
  }
  return pick;
}
