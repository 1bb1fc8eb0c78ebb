/**
 * What class names, ids, roles and tags say about an element. General vocabulary of site templates
 * (WordPress, news CMSs, documentation generators), never tied to one site.
 */

import { classOf } from "../dom.ts";

/** Elements that hold page furniture rather than content, when they are not the bulk of the text. */
export const FURNITURE_TAGS = new Set([
  "NAV",
  "ASIDE",
  "FOOTER",
  "HEADER",
  "FORM",
  "BUTTON",
  "SELECT",
  "MENU",
]);

export const FURNITURE_ROLES = new Set([
  "navigation",
  "banner",
  "contentinfo",
  "complementary",
  "search",
  "menu",
  "menubar",
  "toolbar",
  "dialog",
  "alertdialog",
]);

/**
 * Class or id vocabulary of boilerplate: navigation, sharing, promotion, related links, comments,
 * consent banners. Matched on word-ish boundaries so "shared-state" or "address" do not match.
 */
const BOILERPLATE_WORDS = [
  "nav",
  "navbar",
  "navigation",
  "menu",
  "breadcrumbs?",
  "footer",
  "masthead",
  "site-?header",
  "page-?header",
  "global-?header",
  "sidebar",
  "side-?bar",
  "widget",
  "share",
  "sharing",
  "shares",
  "social",
  "sociallinks",
  "share-?bar",
  "share-?tools",
  "related",
  "recommended",
  "recommendations?",
  "more-?stories",
  "read-?more",
  "read-?next",
  "trending",
  "popular",
  "most-?read",
  "newsletter",
  "subscribe",
  "subscription",
  "signup",
  "sign-?up",
  "promo",
  "promotions?",
  "advert",
  "advertisement",
  "ads?",
  "ad-?slot",
  "ad-?unit",
  "ad-?container",
  "ad-?wrapper",
  "dfp",
  "gpt",
  "sponsor",
  "sponsored",
  "outbrain",
  "taboola",
  "cookie-?(?:banner|bar|notice|consent|popup|law|message|warning)",
  "consent",
  "gdpr",
  // Consent platforms by name; a bare "cmp" is also Adobe Experience Manager's prefix for every component.
  "qc-?cmp\\d*",
  "cmpbox",
  "popup",
  "modal",
  "overlay",
  "tags",
  "tag-?list",
  "tag-?cloud",
  "topics",
  "keywords",
  "author-?bio",
  "author-?box",
  "about-?author",
  "byline",
  "skip-?link",
  "skip-?to-?content",
  "pagination",
  "pager",
  "toolbar",
  "tools",
  "utility",
  "visually-?hidden",
  "sr-?only",
  "screen-?reader-?text",
  "caption",
  "credit",
  "credits",
];
const BOILERPLATE = new RegExp(`(?:^|[\\s_-])(?:${BOILERPLATE_WORDS.join("|")})(?:$|[\\s_-]|\\d)`, "i");
/**
 * In camelCase names a boilerplate word counts only as the last word ("mainNav", "siteFooter"):
 * "navSource" or "headerImage" name parts of the content.
 */
const BOILERPLATE_AT_END = new RegExp(`(?:^|[\\s_-])(?:${BOILERPLATE_WORDS.join("|")})(?:$|\\s)`, "i");
/** Reader comments: boilerplate around an article, the content itself on a forum. */
const COMMENT_WORDS = /(?:^|[\s_-])(?:comments?|comment-?list|disqus|respond|replies)(?:$|[\s_-]|\d)/i;

/** Class or id vocabulary of an article or documentation body. */
const CONTENT =
  /(?:^|[\s_-])(?:article-?body|article-?content|article-?text|articlebody|story-?body|story-?content|entry-?content|post-?content|post-?body|post-?text|main-?content|page-?content|body-?text|content-?body|rich-?text|prose|markdown-?body|text-?content|blog-?post|hentry|h-entry|e-content)(?:$|[\s_-]|\d)/i;

/**
 * A class that states what a part lacks or hides ("hide-read-more-ad", "no-sidebar", "has-comments")
 * says nothing of what the part is.
 */
const STATE_CLASS = /(?:^|\s)(?:hide|hidden|no|has|without|with|disable|disabled)-\S*/gi;

/**
 * CKEditor's markup left in a published page (Drupal's editor) names a block of the text it laid out, a
 * grid of pictured paragraphs, "ck-widget": there the word says nothing of furniture, unlike a sidebar's.
 */
const EDITOR_WIDGET = /(^|\s)ck-widget(?=$|\s)/g;

/** A typeface token ("font-utility-2", a design system's font style) names a look, never a part. */
const FONT_TOKEN = /(?:^|\s)font-[a-z0-9]\S*/g;

/** The element's class and id, the two attributes templates name their parts with. */
export function namesOf(el: Element): string {
  let cls = classOf(el);
  if (cls.includes("-"))
    cls = cls.replace(STATE_CLASS, "").replace(EDITOR_WIDGET, "$1ck-block").replace(FONT_TOKEN, "");
  const id = el.getAttribute("id");
  if (!cls) return id ?? "";
  return id ? `${cls} ${id}` : cls;
}

/** Class and id with camelCase words split ("RichTextArticleBody" reads "Rich-Text-Article-Body"). */
function wordsOf(el: Element): string {
  const names = namesOf(el);
  return names.replace(/([a-z0-9])([A-Z])/g, "$1-$2");
}

/** Elements that are content by their very kind, whatever template names they carry. */
const CONTENT_KINDS = new Set([
  "PRE",
  "CODE",
  "TABLE",
  "BLOCKQUOTE",
  "H1",
  "H2",
  "H3",
  "H4",
  "H5",
  "H6",
  "MAIN",
  "BODY",
  "HTML",
]);

/**
 * The body of a "read more" toggle or expander: the rest of a text, whatever else its names say
 * (Etsy's description is "wt-content-toggle__body", id "content-toggle-product-details-read-more").
 */
const TOGGLE_BODY =
  /(?:^|[\s_-])(?:toggle-+(?:body|content)|expander-+content|read-?more-+(?:content|text|body))(?:$|[\s_-]|\d)/i;

export function looksLikeBoilerplate(el: Element, commentsAreContent = false): boolean {
  if (CONTENT_KINDS.has(el.nodeName)) return false;
  const role = el.getAttribute("role")?.trim().toLowerCase();
  if (role && FURNITURE_ROLES.has(role)) return true;
  const names = namesOf(el);
  if (names === "") return false;
  if (TOGGLE_BODY.test(names.replace(/__/g, "-"))) return false;
  if (BOILERPLATE.test(names)) return true;
  const words = wordsOf(el);
  return BOILERPLATE_AT_END.test(words) || (!commentsAreContent && COMMENT_WORDS.test(words));
}

export function looksLikeContent(el: Element): boolean {
  if (el.getAttribute("itemprop")?.toLowerCase() === "articlebody") return true;
  const names = wordsOf(el);
  return names !== "" && CONTENT.test(names);
}

/** Short texts that are labels of page furniture, never sentences of the content. */
export const FURNITURE_TEXT =
  /^(?:advertisements?|sponsored(?: content)?|ad|share(?: this)?(?: article| story| on \w+)?|follow us|related(?: articles| stories| posts)?|read more|continue reading|see also|more from \w+|you may also like|recommended(?: for you)?|sign up|subscribe(?: now)?|comments?|print|email|skip to (?:main )?content)[\s:.!]*$/i;

/** A whole class or id token naming a comment section or one comment. */
const COMMENTS_TOKEN =
  /^(?:comments?|comment-?(?:list|area|section|thread|wrap|wrapper|container|respond|form|body|content|item)|comments-?(?:area|list|section|thread|wrap|wrapper|container|block)|commentlist|disqus_thread|disqus|respond|replies)$/i;

/**
 * Reader comments are furniture however much text they hold (they often outweigh the article). Whole
 * tokens only: "comments-open" or "has-comments" describe a post, not a comment section.
 */
export function looksLikeComments(el: Element): boolean {
  if (el.nodeName === "BODY" || el.nodeName === "HTML") return false;
  const names = namesOf(el);
  if (!names) return false;
  for (const token of names.split(/\s+/)) if (COMMENTS_TOKEN.test(token)) return true;
  return false;
}

/**
 * Class or id vocabulary of what is never content even on a whole page: consent banners, share
 * buttons, ad slots, pop-ups, text only screen readers get, skip links.
 */
const NEVER_CONTENT_WORDS = [
  "cookie-?(?:banner|bar|notice|consent|policy-?banner|popup|law|message|warning)",
  "consent",
  "gdpr",
  "qc-?cmp\\d*",
  "cmpbox",
  "onetrust",
  "cc-?(?:banner|window)",
  "share",
  "sharing",
  "shares",
  "share-?(?:bar|tools|buttons?|links|icons|widget)",
  "social-?(?:share|sharing|buttons?|icons|links|media-?share)",
  "advert",
  "advertisement",
  "ads?",
  "ad-?(?:slot|unit|container|wrapper|banner|block|placeholder)",
  "dfp",
  "gpt",
  "outbrain",
  "taboola",
  "popup",
  "modal",
  "overlay",
  "visually-?hidden",
  "sr-?only",
  "screen-?reader-?text",
  "skip-?link",
  "skip-?to-?content",
];
const NEVER_CONTENT = new RegExp(`(?:^|[\\s_-])(?:${NEVER_CONTENT_WORDS.join("|")})(?:$|[\\s_-]|\\d)`, "i");

export function looksNeverContent(el: Element): boolean {
  if (CONTENT_KINDS.has(el.nodeName)) return false;
  const role = el.getAttribute("role")?.trim().toLowerCase();
  if ((role === "dialog" || role === "alertdialog") && el.getAttribute("aria-modal") === "true") return true;
  const names = wordsOf(el);
  return names !== "" && NEVER_CONTENT.test(names);
}
