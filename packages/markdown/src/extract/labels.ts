/**
 * Removing short elements whose whole text is a label of page machinery ("Add to cart", "Share",
 * a vote count): the one walk that shop controls and post chrome share.
 */
import { textLengthUpTo, walkElements } from "../dom.ts";
import { collapseSpaces } from "../parse.ts";

export interface LabelRule {
  /** The whole text of a label, spaces collapsed. */
  pattern: RegExp;
  /** Labels are at most this long. */
  maxChars: number;
  /** Which elements may be labels (all when absent). */
  tags?: ReadonlySet<string>;
  /** Labels that must stay even when their text matches (an avatar beside a name). */
  keep?: (el: Element) => boolean;
}

export function removeLabels(container: Element, rule: LabelRule): void {
  const doomed: Element[] = [];
  walkElements(container, (el) => {
    if (rule.tags && !rule.tags.has(el.nodeName)) return true;
    // Raw text this long holds more than a label, even after collapsing its spaces.
    if (textLengthUpTo(el, 4 * rule.maxChars) > 4 * rule.maxChars) return true;
    const said = collapseSpaces(el.textContent ?? "");
    if (said.length > 0 && said.length <= rule.maxChars && rule.pattern.test(said) && !rule.keep?.(el)) {
      doomed.push(el);
      return false;
    }
    return true;
  });
  for (const el of doomed) el.remove();
}
