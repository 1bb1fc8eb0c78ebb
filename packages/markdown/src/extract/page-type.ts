/**
 * What kind of page this is: article, documentation, forum, product, collection, listing or service.
 * Read from what the page says of itself (schema.org types in JSON-LD and microdata, og:type), its URL,
 * and the shape of its body (repeated items, posts with authors, code). Pure and cheap: a few
 * attribute reads and one pass over the JSON-LD text; the body's shape comes from the extractor.
 */

import { walkElements } from "../dom.ts";
import { PAGE_TYPE_MODEL } from "./page-type-model.ts";

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
  /** The document's first <title>, lower-cased. */
  title?: string;
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
  /** Characters of text in the body, and the shares of them in links and in content-like blocks. */
  chars?: number;
  linkShare?: number;
  goodShare?: number;
  /** Headings, form fields, tables, images, links and <time> elements in the body. */
  headings?: number;
  fields?: number;
  tables?: number;
  images?: number;
  links?: number;
  times?: number;
}

const TYPE_NAME = /"@type"\s*:\s*(\[[^\]]*\]|"[^"]*")/g;

export function readHints(document: Document, url: string): PageHints {
  const schemaTypes = new Set<string>();
  let dated = false;
  let og: string | undefined;
  let title: string | undefined;
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
      if (tag === "TITLE") {
        title ??= el.textContent?.replace(/\s+/g, " ").trim().toLowerCase();
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
  return {
    schemaTypes,
    ...(og ? { ogType: og.trim().toLowerCase() } : {}),
    path,
    host,
    dated,
    ...(title ? { title } : {}),
  };
}

const URL_SIGNS: Array<[RegExp, PageType]> = [
  [
    /\/(?:t|d)\/[^/]+\/\d+|\/threads?\/|\/topics?\/[^/]*\d{3,}|\/viewtopic|\/forums?\/|\/questions\/\d+|\/comments\/|\/boards?\//,
    "forum",
  ],
  [
    /\/(?:docs?|documentation|api|reference|manual|guides?|library|learn|tutorials?|book|handbook|spec)(?:\/|$)/,
    "documentation",
  ],
  [/\/(?:products?|p|pdp|dp|itm|ip|pr|item|app)\/[^/]+/, "product"],
  [/\.html?$|\/[a-z0-9-]*-\d{4,}\/?$/, "product"],
  [
    /\/(?:collections?|c|category|categories|cat|shop|browse|b|l|w|cp|department|sub-categories|store)(?:\/|$)/,
    "collection",
  ],
  [
    /\/(?:news|blog|jobs|remote-jobs|list|lists|rankings?|trending|topics?|tags?|chart|events|courses|programs|recent|issues|hub)\/?$/,
    "listing",
  ],
  [/\/\d{4}\/\d{1,2}\/|\/(?:blog|news|articles?|posts?|stories|story)\/[^/]+/, "article"],
  [
    /\/(?:services?|solutions?|features?|pricing|why-|about|programs?|degrees?|certificates?|tuition)/,
    "service",
  ],
];

/** One product's own address, and the share of the page its rails of other products stay under. */
const PRODUCT_PATH = /\/(?:products?|p|pdp|dp|itm|ip|pr|item)\/[^/]+/;
const OTHER_ITEMS_SHARE = 0.5;
/** This many cards with a price make a shop's grid, whatever share of the page's text they hold. */
const MANY_PRICED = 6;

const SCHEMA_SIGNS: Array<[RegExp, PageType]> = [
  [/^(?:discussionforumposting|qapage|question|answer|comment|socialmediaposting)$/, "forum"],
  [/^(?:techarticle|apireference|softwaresourcecode)$/, "documentation"],
  [
    /^(?:product|productgroup|offer|aggregateoffer|individualproduct|productmodel|vehicle|book|softwareapplication|course|videogame)$/,
    "product",
  ],
  [/^(?:itemlist|collectionpage|offercatalog|searchresultspage)$/, "collection"],
  [
    /^(?:article|newsarticle|blogposting|reportagenewsarticle|analysisnewsarticle|opinionnewsarticle|review|recipe|howto)$/,
    "article",
  ],
  [
    /^(?:service|professionalservice|localbusiness|financialservice|educationalorganization|medicalbusiness|homeandconstructionbusiness|legalservice)$/,
    "service",
  ],
];

const TITLE_SIGNS: Array<[string, RegExp]> = [
  ["forum", /\b(?:forums?|threads?|community|discussions?|questions?|answers?|replies)\b/],
  ["documentation", /\b(?:docs?|documentation|api|reference|guide|tutorial|manual|sdk|developers?)\b/],
  ["shop", /\b(?:buy|shop|store|price|sale|deals?|cart|online)\b/],
  [
    "service",
    /\b(?:services?|solutions?|company|agency|consulting|consultants?|experts?|contractors?|platform|software)\b/,
  ],
  ["news", /\b(?:news|blog|stories|articles?|magazine)\b/],
  ["list", /\b(?:best|top \d+|jobs|results|listings?|search|all|categories|collection)\b/],
];

const WORD_BREAK = /[^\p{L}\p{N}]+/u;
/**
 * The words of an address or a title the classifier may weigh: words that say what form a page has (a
 * post, a guide, a thread, a product, a category, a list, a service), in English, chosen beforehand, not
 * read off the training pages. A word about a page's subject (nutrition, coffee, plumbing) says nothing of
 * its form, and learned from a corpus with a few subjects it only remembers which sites wrote about what.
 */
const FORM_WORDS = new Set(
  [
    // Articles: posts, news, how-tos and lists of advice.
    "blog blogs news article articles post posts story stories opinion editorial column magazine press",
    "how what why when who which guide guides tips ideas best top vs versus review reviews explained",
    "complete ultimate beginner beginners introduction overview checklist myths benefits ways things",
    "reasons essay insights trends latest history",
    // Documentation.
    "docs doc documentation manual reference api apis sdk tutorial tutorials getting started quickstart",
    "install installation setup configuration config cli learn lesson lessons example examples changelog",
    "release releases faq wiki handbook kb knowledge help support spec specification",
    // Forums.
    "forum forums thread threads topic topics viewtopic showthread discussion discussions community board",
    "boards question questions answers reply replies members",
    // Products and collections.
    "product products item items buy shop store cart price prices sale deals collection collections",
    "category categories catalog catalogue brand brands department browse range",
    // Listings.
    "list lists jobs job events event courses course directory listings results search rankings archive",
    "archives calendar tag tags index page",
    // Services.
    "services service solutions consulting agency company about contact pricing booking appointment",
    "quote hire near plans",
  ]
    .join(" ")
    .split(" "),
);
const isWord = (w: string) => FORM_WORDS.has(w);

/**
 * What the classifier weighs: the signs above as indicators, and the page's shape as numbers scaled to
 * about 0-3. Its weights (page-type-model.ts) are learned from labelled pages by
 * packages/markdown/scripts/train-page-type.ts.
 */
export function pageFeatures(hints: PageHints, shape: BodyShape): Map<string, number> {
  const f = new Map<string, number>();
  const set = (name: string, value: number | boolean) => {
    if (value) f.set(name, Number(value));
  };
  const log = (n: number | undefined, scale: number) => Math.log1p(n ?? 0) / scale;
  const path = hints.path;
  for (const [i, [re, type]] of URL_SIGNS.entries()) set(`url:${type}:${i}`, re.test(path));
  const segments = path.split("/").filter(Boolean);
  set("path:root", segments.length === 0);
  set("path:depth", Math.min(segments.length, 6) / 3);
  set("path:slash", segments.length > 0 && path.endsWith("/"));
  set("path:number", /\d{4,}/.test(path));
  set("path:slug", (segments.at(-1)?.split("-").length ?? 0) >= 5);
  set("host:documentation", /^(?:docs|developer|developers|learn|api|wiki)\./.test(hints.host));
  set("host:documentation-site", /readthedocs|gitbook/.test(hints.host));
  set("host:forum", /^(?:forum|forums|community|discuss|discussion|answers|boards)\./.test(hints.host));
  // An FAQ block's questions and answers do not make a forum.
  const faq = hints.schemaTypes.has("faqpage");
  set("schema:faq", faq);
  for (const name of hints.schemaTypes) {
    if (faq && (name === "question" || name === "answer")) continue;
    for (const [re, type] of SCHEMA_SIGNS) if (re.test(name)) set(`schema:${type}`, true);
  }
  set("schema:any", hints.schemaTypes.size > 0);
  const og = hints.ogType;
  set("og:product", og === "product");
  set("og:product.group", og === "product.group");
  set("og:article", og === "article");
  set("og:website", og === "website");
  set("og:other", og !== undefined && !["product", "product.group", "article", "website"].includes(og));
  set("dated", hints.dated === true);
  for (const [name, re] of TITLE_SIGNS) set(`title:${name}`, re.test(hints.title ?? ""));
  // Words of the address and the title; the model weighs only those its training pages share across sites.
  for (const word of path.split(WORD_BREAK)) if (isWord(word)) set(`path-word:${word}`, true);
  for (const word of (hints.title ?? "").split(WORD_BREAK).slice(0, 16))
    if (isWord(word)) set(`title-word:${word}`, true);

  const priced = shape.items > 0 && shape.pricedItems >= 0.5 * shape.items;
  const grid = shape.items >= 6 && (shape.itemShare >= 0.2 || (priced && shape.pricedItems >= MANY_PRICED));
  // A product's own address with other products under it (similar items, also viewed) stays a product.
  const oneProduct = PRODUCT_PATH.test(path) && shape.itemShare < OTHER_ITEMS_SHARE;
  set("grid", grid && !oneProduct);
  set("grid:priced", grid && !oneProduct && priced);
  set("grid:share", grid && !oneProduct ? shape.itemShare : 0);
  set("items", log(shape.items, 3));
  set("items:share", shape.itemShare);
  set("items:priced", priced);
  set("product-path:items", oneProduct && shape.items > 0);
  set("posts", Math.min(3, shape.posts / 3));
  set("code", Math.min(3, shape.codeBlocks / 3));
  set("prices:few", shape.prices >= 1 && shape.prices <= 6 && shape.items < 6);
  set("prices", log(shape.prices, 3));
  set("calls", Math.min(2.5, (shape.calls ?? 0) / 3));
  set("paragraphs:many", shape.paragraphs >= 8);
  set("paragraphs:none", shape.paragraphs === 0);
  set("paragraphs:few", shape.paragraphs > 0 && shape.paragraphs <= 2);
  set("paragraphs", log(shape.paragraphs, 3));
  set("chars", log(shape.chars, 10));
  set("link-share", shape.linkShare ?? 0);
  set("good-share", Math.min(1, shape.goodShare ?? 0));
  set("headings", log(shape.headings, 3));
  set("fields", log(shape.fields, 3));
  set("tables", log(shape.tables, 2));
  set("images", log(shape.images, 4));
  set("links", log(shape.links, 6));
  set("times", log(shape.times, 3));
  return f;
}

/** The most likely type, with the scores each type got (for tests and tuning). */
export function classifyPage(
  hints: PageHints,
  shape: BodyShape,
): { type: PageType; scores: Record<PageType, number> } {
  const { types, bias, weights } = PAGE_TYPE_MODEL;
  const sums = [...bias];
  const features = pageFeatures(hints, shape);
  for (const [name, value] of features) {
    const w = weights[name];
    if (w) for (let k = 0; k < sums.length; k++) sums[k] = (sums[k] ?? 0) + value * (w[k] ?? 0);
  }
  const scores = Object.fromEntries(
    PAGE_TYPES.map((t) => [t, sums[types.indexOf(t)] ?? -Infinity]),
  ) as Record<PageType, number>;
  let type: PageType = "article";
  for (const t of PAGE_TYPES) if (scores[t] > scores[type]) type = t;
  // A page that calls itself one product (og:type) is one, unless its body is a shop's grid: on the
  // tune split nine in ten such pages are, where the learned weights, shrunk towards 0, can be outvoted
  // by a long run of reviews.
  if (hints.ogType === "product" && !features.has("grid:priced")) type = "product";
  return { type, scores };
}
