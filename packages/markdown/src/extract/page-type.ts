/**
 * What kind of page this is: article, documentation, forum, product, collection, listing or service.
 * Read from what the page says of itself (schema.org types in JSON-LD and microdata, og:type), its URL,
 * and the shape of its body (repeated items, posts with authors, code). Pure and cheap: a few
 * attribute reads and one pass over the JSON-LD text; the body's shape comes from the extractor.
 */

import { walkElements } from "../dom.ts";

export const PAGE_TYPES = [
  "article",
  "documentation",
  "forum",
  "product",
  "collection",
  "listing",
  "service",
] as const;
export type PageType = (typeof PAGE_TYPES)[number];

/** What the document's head and URL say, read before cleaning removes the scripts that carry it. */
export interface PageHints {
  /** schema.org types named in JSON-LD or microdata (itemtype), lower-cased, without the vocabulary URL. */
  schemaTypes: Set<string>;
  /** og:type, lower-cased. */
  ogType?: string;
  /** The page's URL path, lower-cased. */
  path: string;
  host: string;
  /** The page says when it was published (article:published_time, datePublished, a <time> in a byline). */
  dated?: boolean;
}

/** What the extractor saw of the body. */
export interface BodyShape {
  /** Alike items with links (cards, results) and the share of the page's text they hold. */
  items: number;
  itemShare: number;
  /** How many of those items show a price. */
  pricedItems: number;
  /** Prices shown anywhere in the body. */
  prices: number;
  /** Code blocks. */
  codeBlocks: number;
  /** Elements named as posts or messages of a thread. */
  posts: number;
  /** Long prose paragraphs. */
  paragraphs: number;
  /** Calls to action: get started, contact us, book a demo, request a quote... */
  calls?: number;
}

const TYPE_NAME = /"@type"\s*:\s*(\[[^\]]*\]|"[^"]*")/g;

export function readHints(document: Document, url: string): PageHints {
  const schemaTypes = new Set<string>();
  let dated = false;
  let og: string | undefined;
  // One walk over the tree: linkedom's attribute selectors would each walk it again.
  const root = document.documentElement;
  if (root) {
    walkElements(root, (el) => {
      const tag = el.nodeName;
      if (tag === "SCRIPT") {
        if (el.getAttribute("type") === "application/ld+json") {
          const text = el.textContent ?? "";
          if (text.includes('"datePublished"')) dated = true;
          for (const m of text.matchAll(TYPE_NAME)) {
            for (const name of (m[1] ?? "").replace(/[[\]"\s]/g, "").split(","))
              if (name) schemaTypes.add(name.replace(/^.*[/:]/, "").toLowerCase());
          }
        }
        return false;
      }
      if (tag === "META") {
        const property = el.getAttribute("property") ?? el.getAttribute("name");
        if (property === "og:type") og ??= el.getAttribute("content") ?? undefined;
        else if (property === "article:published_time" || property === "date") dated = true;
        return false;
      }
      const itemtype = el.getAttribute("itemtype");
      if (itemtype)
        for (const t of itemtype.split(/\s+/)) if (t) schemaTypes.add(t.replace(/^.*\//, "").toLowerCase());
      return tag !== "STYLE" && tag !== "SVG";
    });
  }
  let path = "";
  let host = "";
  try {
    const u = new URL(url);
    path = decodeURIComponent(u.pathname).toLowerCase();
    host = u.hostname.toLowerCase();
  } catch {}
  return { schemaTypes, ...(og ? { ogType: og.trim().toLowerCase() } : {}), path, host, dated };
}

const URL_SIGNS: Array<[RegExp, PageType, number]> = [
  [
    /\/(?:t|d)\/[^/]+\/\d+|\/threads?\/|\/topics?\/[^/]*\d{3,}|\/viewtopic|\/forums?\/|\/questions\/\d+|\/comments\/|\/boards?\//,
    "forum",
    3,
  ],
  [
    /\/(?:docs?|documentation|api|reference|manual|guides?|library|learn|tutorials?|book|handbook|spec)(?:\/|$)/,
    "documentation",
    2,
  ],
  [/\/(?:products?|p|pdp|dp|itm|ip|pr|item|app)\/[^/]+/, "product", 2],
  [/\.html?$|\/[a-z0-9-]*-\d{4,}\/?$/, "product", 0.5],
  [
    /\/(?:collections?|c|category|categories|cat|shop|browse|b|l|w|cp|department|sub-categories|store)(?:\/|$)/,
    "collection",
    2,
  ],
  [
    /\/(?:news|blog|jobs|remote-jobs|list|lists|rankings?|trending|topics?|tags?|chart|events|courses|programs|recent|issues|hub)\/?$/,
    "listing",
    2,
  ],
  [/\/\d{4}\/\d{1,2}\/|\/(?:blog|news|articles?|posts?|stories|story)\/[^/]+/, "article", 2],
  [
    /\/(?:services?|solutions?|features?|pricing|why-|about|programs?|degrees?|certificates?|tuition)/,
    "service",
    1.5,
  ],
];

/** One product's own address, and the share of the page its rails of other products stay under. */
const PRODUCT_PATH = /\/(?:products?|p|pdp|dp|itm|ip|pr|item)\/[^/]+/;
const OTHER_ITEMS_SHARE = 0.5;
/** This many cards with a price make a shop's grid, whatever share of the page's text they hold. */
const MANY_PRICED = 6;

const SCHEMA_SIGNS: Array<[RegExp, PageType, number]> = [
  [/^(?:discussionforumposting|qapage|question|answer|comment|socialmediaposting)$/, "forum", 3],
  [/^(?:techarticle|apireference|softwaresourcecode)$/, "documentation", 3],
  [
    /^(?:product|productgroup|offer|aggregateoffer|individualproduct|productmodel|vehicle|book|softwareapplication|course|videogame)$/,
    "product",
    1.5,
  ],
  [/^(?:itemlist|collectionpage|offercatalog|searchresultspage)$/, "collection", 2],
  [
    /^(?:article|newsarticle|blogposting|reportagenewsarticle|analysisnewsarticle|opinionnewsarticle|review|recipe|howto)$/,
    "article",
    2.5,
  ],
  [
    /^(?:service|professionalservice|localbusiness|financialservice|educationalorganization|medicalbusiness|homeandconstructionbusiness|legalservice)$/,
    "service",
    2,
  ],
];

/** The most likely type, with the scores each type got (for tests and tuning). */
export function classifyPage(
  hints: PageHints,
  shape: BodyShape,
): { type: PageType; scores: Record<PageType, number> } {
  const scores = Object.fromEntries(PAGE_TYPES.map((t) => [t, 0])) as Record<PageType, number>;
  scores.article = 1; // Most of the web that people scrape is prose.
  for (const [re, type, weight] of URL_SIGNS) if (re.test(hints.path)) scores[type] += weight;
  if (hints.path === "/" || hints.path === "") scores.service += 1.5;
  if (
    /^(?:docs|developer|developers|learn|api|wiki)\./.test(hints.host) ||
    /readthedocs|gitbook/.test(hints.host)
  )
    scores.documentation += 3;
  if (/^(?:forum|forums|community|discuss|discussion|answers|boards)\./.test(hints.host)) scores.forum += 2.5;
  // An FAQ block's questions and answers do not make a forum.
  const faq = hints.schemaTypes.has("faqpage");
  for (const name of hints.schemaTypes) {
    if (faq && (name === "question" || name === "answer")) continue;
    for (const [re, type, weight] of SCHEMA_SIGNS) if (re.test(name)) scores[type] += weight;
  }
  if (hints.ogType === "product") scores.product += 2;
  if (hints.ogType === "product.group") scores.collection += 2;
  if (hints.ogType === "article") scores.article += 1;
  if (hints.dated) scores.article += 1;

  // The body's shape.
  const priced = shape.pricedItems >= 0.5 * shape.items;
  // A shop's grid of priced cards is the page even when menus and footers outweigh its short texts.
  if (shape.items >= 6 && (shape.itemShare >= 0.2 || (priced && shape.pricedItems >= MANY_PRICED))) {
    // A product's own address with other products under it (similar items, also viewed) stays a product.
    const oneProduct = PRODUCT_PATH.test(hints.path) && shape.itemShare < OTHER_ITEMS_SHARE;
    if (!oneProduct) {
      scores[priced ? "collection" : "listing"] += 1 + 4 * shape.itemShare;
      if (priced) scores.product -= 1.5;
    }
  }
  if (shape.posts >= 3) scores.forum += Math.min(3, shape.posts / 3);
  if (shape.codeBlocks >= 3) scores.documentation += Math.min(3, shape.codeBlocks / 3);
  if (shape.prices >= 1 && shape.prices <= 6 && shape.items < 6) scores.product += 1;
  if ((shape.calls ?? 0) >= 2) scores.service += Math.min(2.5, 0.5 + (shape.calls ?? 0) / 3);
  if (shape.paragraphs >= 8) scores.article += 1.5;
  else if (shape.paragraphs === 0) scores.article -= 1;
  else if (shape.paragraphs <= 2) scores.article -= 0.5;

  let type: PageType = "article";
  for (const t of PAGE_TYPES) if (scores[t] > scores[type]) type = t;
  return { type, scores };
}
