/**
 * Dialogs (modal windows, <dialog>, role=dialog): policies, size guides, sign-up and cart drawers
 * that a page keeps in its markup until a click opens them. On a page they are never its main
 * content, though a policy behind a footer link can hold more text than the page itself.
 */
import { walkElements } from "../dom.ts";

const DIALOG_ROLES = new Set(["dialog", "alertdialog"]);

function isDialog(el: Element): boolean {
  if (el.nodeName === "DIALOG") return true;
  const role = el.getAttribute("role");
  if (role && DIALOG_ROLES.has(role.trim().toLowerCase())) return true;
  return el.getAttribute("aria-modal") === "true";
}

export function removeDialogs(body: Element): void {
  const doomed: Element[] = [];
  walkElements(body, (el) => {
    if (!isDialog(el)) return true;
    doomed.push(el);
    return false;
  });
  for (const el of doomed) el.remove();
}
