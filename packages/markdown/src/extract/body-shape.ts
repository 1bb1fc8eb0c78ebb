/**
 * What the page-type classifier reads of a body cleaned for extraction: its item cards, prices, code
 * blocks, posts, calls to action, prose paragraphs, headings, form fields, tables, images, links and
 * dates, and the shares of its text in links and in content-like blocks (see page-type.ts).
 * Tests: test/page-type.test.ts ("page types").
 */
import { classOf, walkElements } from "../dom.ts";
import { HEADING_TAGS } from "./blocks.ts";
import { findItemGrid, type ItemGrid } from "./item-grid.ts";
import { type BodyShape, type PageHints, pageFeatures } from "./page-type.ts";
import { type Tallies, tally, tallyOf } from "./score.ts";

const PRICE = /(?:[$€£¥₹]\s?\d[\d.,]*|\d[\d.,]*\s?(?:€|kr|zł|USD|EUR|GBP))/g;
/** Class tokens of one post or message of a thread, as forum engines name them. */
const POST_TOKEN =
  /^(?:post|message|reply|answer|topic-post|forum-post|postbody|post-body|message-body|messagecontent|cooked|bbwrapper|js-post|comment-body|post-message|post_message|postcontainer|post-container|posttext|(?:discussion-?board|thread|topic|forum)(?:-|__)(?:item|post|reply|message|entry))$/i;

const BLOG_ENTRY = /(?:^|\s)(?:type-post|hentry|status-publish)(?:\s|$)/;

/** What a service or product page asks its reader to do. */
const CALL_TO_ACTION =
  /^\s*(?:get started|get a (?:quote|demo)|request a (?:quote|demo|consultation)|book a (?:demo|call|consultation)|contact (?:us|sales)|talk to (?:sales|an expert)|start (?:your )?free trial|try (?:it )?(?:for )?free|schedule (?:a )?(?:call|consultation|demo)|sign up(?: free)?|get in touch|free consultation|apply now|enroll now)\b/i;

const FIELDS = new Set(["INPUT", "SELECT", "TEXTAREA"]);

/** `text`: the body's text content, measured once by the caller. */
export function bodyShape(
  body: Element,
  tallies: Tallies,
  grid: ItemGrid | undefined,
  text: string,
): BodyShape {
  const pageChars = Math.max(1, tallyOf(tallies, body).chars);
  let codeBlocks = 0;
  let posts = 0;
  let calls = 0;
  let headings = 0;
  let fields = 0;
  let tables = 0;
  let images = 0;
  let links = 0;
  let times = 0;
  walkElements(body, (el) => {
    const tag = el.nodeName;
    if (tag === "PRE") codeBlocks++;
    else if (HEADING_TAGS.has(tag)) headings++;
    else if (FIELDS.has(tag)) fields++;
    else if (tag === "TABLE") tables++;
    else if (tag === "IMG") images++;
    else if (tag === "TIME") times++;
    if (tag === "A") links++;
    if ((tag === "A" || tag === "BUTTON") && CALL_TO_ACTION.test(el.textContent ?? "")) calls++;
    const cls = classOf(el);
    // WordPress classes every entry of a blog "post" ("post type-post hentry"): a list of articles, no thread.
    if (cls && !BLOG_ENTRY.test(cls))
      for (const token of cls.split(/\s+/)) if (POST_TOKEN.test(token)) posts++;
    return true;
  });
  let linkChars = 0;
  for (const b of tallies.blocks) linkChars += b.linkChars;
  const priced = (el: Element) => (el.textContent ?? "").search(PRICE) >= 0;
  return {
    items: grid?.items.length ?? 0,
    itemShare: grid ? grid.chars / pageChars : 0,
    pricedItems: grid ? grid.items.filter(priced).length : 0,
    prices: text.match(PRICE)?.length ?? 0,
    codeBlocks,
    posts,
    calls,
    paragraphs: tallies.blocks.filter((b) => b.el.nodeName === "P" && b.chars >= 150).length,
    chars: pageChars,
    linkShare: linkChars / pageChars,
    goodShare: tallyOf(tallies, body).good / pageChars,
    headings,
    fields,
    tables,
    images,
    links,
    times,
  };
}

/** What the classifier reads of a body cleaned for extraction (see pageFeatures). */
export function pageTypeFeatures(body: Element, hints: PageHints): Map<string, number> {
  const tallies = tally(body);
  return pageFeatures(hints, bodyShape(body, tallies, findItemGrid(body, tallies), body.textContent ?? ""));
}
