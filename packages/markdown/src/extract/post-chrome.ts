/**
 * Around each post of a thread, the engine prints its own chrome: vote counts, reputation and badge
 * tallies, "asked"/"answered"/"edited" stamps, share and follow links. The post and its author stay.
 */
import { removeLabels } from "./labels.ts";

const CHROME =
  /^(?:[-+]?\d[\d,.]*k?|\d+ (?:gold|silver|bronze) badges?.*|(?:[\d,.]+k?\s*)?\d+\s*gold badges?\s*\d+\s*silver badges?\s*\d+\s*bronze badges?|share|improve this (?:answer|question)|follow|flag|edited .{0,40}|asked .{0,40}|answered .{0,40}|modified .{0,40}|viewed .{0,40}|add a comment|show \d+ more comments?|reply|quote|report|like|permalink|\d+ (?:replies|likes|points?|votes?))$/i;
const MAX_CHROME_CHARS = 80;

export function removePostChrome(container: Element): void {
  removeLabels(container, {
    pattern: CHROME,
    maxChars: MAX_CHROME_CHARS,
    keep: (el) => el.querySelector("img") !== null,
  });
}
