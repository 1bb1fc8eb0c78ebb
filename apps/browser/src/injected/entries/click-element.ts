/**
 * Run on an element (locator.evaluate): its own click handler, directly, with no actionability checks.
 * For a button Playwright's click cannot reach (covered by another overlay, or never stable).
 */
export default function clickElement(el: Element): boolean {
  (el as HTMLElement).click();
  return true;
}
