/**
 * A page's feedback prompt ("Was this page helpful? Yes No"): documentation and help centres put one under
 * every page, inside the content's own container, so no furniture name or link share finds it. Its whole
 * text is the question and its answers; it says nothing of the page.
 * Tests: test/page-kinds.test.ts ("keeps every step of a tutorial...").
 */
import { removeLabels } from "./labels.ts";

const PROMPT =
  /^(?:(?:was|is|did) (?:this|the) (?:page|article|answer|post|guide|doc|document|information|content )?\s*(?:helpful|useful|help(?: you)?)|did you find (?:this|what you were looking for)(?: (?:page|article) )?\s*(?:helpful|useful)?|how (?:helpful|useful) was this (?:page|article)|rate this (?:page|article))\s*\??\s*(?:(?:yes|no|👍|👎|thumbs up|thumbs down|not really)\s*)*$/i;

const PROMPT_TAGS = new Set(["DIV", "SECTION", "ASIDE", "FORM", "P", "FOOTER"]);

export function removeFeedbackPrompts(container: Element): void {
  removeLabels(container, { pattern: PROMPT, maxChars: 90, tags: PROMPT_TAGS });
}
