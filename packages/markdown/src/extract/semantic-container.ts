/**
 * For pages too short for the text statistics: the page's one <article>, else its one <main>
 * (or role=main), when it holds most of the page's text. HTML5 says that is the main content.
 * Tests: test/page-type.test.ts ("a product keeps its name, price, description and specifications",
 * whose page is short), test/main-content.test.ts ("does not take a newsletter box's pitch...").
 */
import { type Tallies, tallyOf } from "./score.ts";

export function semanticContainer(body: Element, tallies: Tallies): Element | undefined {
  const pageChars = tallyOf(tallies, body).chars;
  for (const selector of ["article", "main, [role=main]"]) {
    const found = body.querySelectorAll(selector);
    if (found.length !== 1) continue;
    const el = found[0] as Element;
    if (pageChars > 0 && tallyOf(tallies, el).chars >= 0.5 * pageChars) return el;
  }
  return undefined;
}
