/**
 * In a thread, a reply that quotes an earlier post repeats that post's text. The reply's own words
 * stay; a quote whose text the thread already holds goes (a quote of something not on the page, a
 * post from another thread or an article, stays).
 */
import { classOf, walkElements } from "../dom.ts";
import { collapseSpaces } from "../parse.ts";

const QUOTE_NAME =
  /(?:^|[\s_-])(?:bbcodeblock--quote|quote|bbcode_quote|quotecontainer|post-?quote)(?:$|\s)/i;
/** Characters of a quote's text compared with the thread: enough to be a passage, not a phrase. */
const SNIPPET_CHARS = 60;

const normalize = (text: string) => collapseSpaces(text).toLowerCase();

function isQuote(el: Element): boolean {
  if (el.nodeName === "BLOCKQUOTE") return true;
  return QUOTE_NAME.test(classOf(el));
}

/** The quoted passage without its "Name said:" attribution line. */
function quotedText(quote: Element): string {
  const text = normalize(quote.textContent ?? "");
  return text.replace(/^.{0,60}?\bsaid:\s*(?:↑\s*)?(?:click to expand\.{0,3}\s*)?/i, "");
}

export function removeRepeatedQuotes(container: Element): void {
  const quotes: Element[] = [];
  walkElements(container, (el) => {
    if (!isQuote(el)) return true;
    quotes.push(el);
    return false;
  });
  if (quotes.length === 0) return;
  const thread = normalize(container.textContent ?? "");
  for (const quote of quotes) {
    const snippet = quotedText(quote).slice(0, SNIPPET_CHARS);
    if (snippet.length < SNIPPET_CHARS / 2) continue;
    const first = thread.indexOf(snippet);
    // Found twice: once in the quote, once where it was first written.
    if (first >= 0 && thread.indexOf(snippet, first + 1) >= 0) quote.remove();
  }
}
