import { BUTTON_RULES, type ButtonKind, type ButtonRules } from "./consent-rules.ts";

/**
 * Pure: what clicking a button with this text would do on a consent banner. Runs in Node and, bundled
 * into the overlay pass, in the page: `unsafe` wins over everything, then reject, accept, close.
 */
export function classifyWith(rules: ButtonRules, text: string): ButtonKind | undefined {
  const t = text
    .normalize("NFKC")
    .replace(/[\u2018\u2019\u02bc`´]/g, "'")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
  if (!t) return undefined;
  if (new RegExp(rules.unsafe, "iu").test(t)) return "unsafe";
  if (t.length > rules.maxLength) return undefined;
  if (new RegExp(rules.reject, "iu").test(t)) return "reject";
  if (new RegExp(rules.accept, "iu").test(t)) return "accept";
  if (new RegExp(rules.close, "iu").test(t)) return "close";
  return undefined;
}

/** Button text → 'reject' | 'accept' | 'close' | 'unsafe' | undefined (not understood). */
export function classifyButtonText(text: string): ButtonKind | undefined {
  return classifyWith(BUTTON_RULES, text);
}
