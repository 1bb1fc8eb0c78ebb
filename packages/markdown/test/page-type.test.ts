import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { htmlToMarkdown } from "../src/index.ts";

const main = (html: string, url: string) => htmlToMarkdown(html, { baseUrl: url, onlyMainContent: true });

const chrome = `<header><nav><a href="/">Home</a> <a href="/shop">Shop</a> <a href="/about">About</a></nav></header>`;
const footer = `<footer><a href="/privacy">Privacy Policy</a> <a href="/terms">Terms</a> © 2026 Example Inc.</footer>`;
const prose = (topic: string, n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      `<p>Paragraph ${i + 1} about ${topic}: this sentence is long enough to read as prose, with commas, clauses and a full stop at its end, as writing in an article does.</p>`,
  ).join("\n");

const card = (
  i: number,
) => `<li class="product-card card-${i}"><a href="/p/item-${i}"><img src="/i/${i}.jpg" alt="Trail shoe ${i}"></a>
  <h3 class="product-card__title"><a href="/p/item-${i}">Trail Runner Model ${i}</a></h3>
  <span class="price">$${100 + i}.00</span> <span>${i % 3} colors</span></li>`;

const collection = `<html><head><title>Trail running shoes</title>
  <meta property="og:type" content="product.group"></head><body>${chrome}
  <main><h1>Trail Running Shoes</h1><p>Grippy shoes for muddy trails.</p>
  <ul class="product-grid">${Array.from({ length: 12 }, (_, i) => card(i + 1)).join("")}</ul></main>${footer}</body></html>`;

const post = (i: number, author: string, text: string) => `<article class="post" id="post-${i}">
  <div class="post-author"><a href="/u/${author}">${author}</a> <time>March ${i}, 2026</time></div>
  <div class="post-body"><p>${text}</p></div></article>`;
const forum = `<html><head><title>Which tent for winter?</title>
  <script type="application/ld+json">{"@context":"https://schema.org","@type":"DiscussionForumPosting","headline":"Which tent for winter?"}</script>
  </head><body>${chrome}<h1>Which tent for winter?</h1>
  ${post(1, "alpinist", "I am looking for a four season tent that survives strong wind, any advice from people who camped in snow?")}
  ${post(2, "snowcamper", "A geodesic dome with many pole crossings held up best for me, though it weighs more than a tunnel tent does.")}
  ${post(3, "ranger", "Whatever you pick, practise pitching it with gloves on before the trip, because cold fingers are slow.")}
  <section class="comments"><h2>Replies</h2>${post(4, "late", "Thanks, the glove tip saved my weekend in the mountains last month, truly.")}</section>
  ${footer}</body></html>`;

const product = `<html><head><title>Trail Runner 7</title><meta property="og:type" content="product">
  <script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Trail Runner 7","offers":{"@type":"Offer","price":"129.00"}}</script>
  </head><body>${chrome}<main><h1>Trail Runner 7</h1><p class="price">$129.00</p><button>Add to cart</button>
  <div class="description"><p>A light trail shoe with a rock plate, a grippy outsole and a breathable mesh upper, for long days on rough ground.</p></div>
  <table><tr><th>Weight</th><td>280 g</td></tr><tr><th>Drop</th><td>6 mm</td></tr></table></main>${footer}</body></html>`;

const article = `<html><head><title>How trails are built</title>
  <script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"How trails are built"}</script>
  </head><body>${chrome}<article><h1>How trails are built</h1>${prose("trail building", 10)}</article>${footer}</body></html>`;

const docs = `<html><head><title>fetch() - API reference</title></head><body>${chrome}
  <main><h1>fetch()</h1>${prose("the fetch API", 3)}
  ${Array.from({ length: 4 }, (_, i) => `<h2>Example ${i + 1}</h2><pre><code class="language-js">const res${i} = await fetch("/api/${i}");</code></pre>`).join("")}
  </main>${footer}</body></html>`;

const service = `<html><head><title>Data analytics consulting</title></head><body>${chrome}
  <main><h1>Data analytics consulting</h1><p>Turn your data into decisions with our analysts.</p><a href="/contact">Contact us</a>
  <h2>What we do</h2><p>Dashboards, data pipelines and forecasting for growing teams.</p><a href="/demo">Book a demo</a>
  <h2>Why us</h2><p>Ten years of projects in retail, finance and health.</p><a href="/start">Get started</a></main>${footer}</body></html>`;

const story = (
  i: number,
) => `<div class="story-card"><a href="/2026/03/${i}/story-${i}"><h3>Headline number ${i} of the day</h3></a>
  <p>A short summary of story ${i}, one line long.</p><span class="byline">By Reporter ${i}</span></div>`;
const listing = `<html><head><title>Science news</title></head><body>${chrome}
  <main><h1>Science</h1><div class="stories">${Array.from({ length: 10 }, (_, i) => story(i + 1)).join("")}</div></main>
  ${footer}</body></html>`;

describe("page types", () => {
  it("classifies each kind of page from its structured data, URL and shape", () => {
    assert.equal(main(collection, "https://shop.example/collections/trail-shoes").pageType, "collection");
    assert.equal(main(forum, "https://forum.example/t/which-tent-for-winter/4411").pageType, "forum");
    assert.equal(main(product, "https://shop.example/products/trail-runner-7").pageType, "product");
    assert.equal(main(article, "https://news.example/2026/03/14/how-trails-are-built").pageType, "article");
    assert.equal(main(docs, "https://docs.example/reference/fetch").pageType, "documentation");
    assert.equal(main(service, "https://consult.example/").pageType, "service");
    assert.equal(main(listing, "https://news.example/science/").pageType, "listing");
  });

  it("a product's own page with a rail of other products under it stays a product", () => {
    const page = `<html><head><title>Switch OLED, refurbished</title></head><body>${chrome}
      <main><h1>Switch OLED White, refurbished</h1><p>$299.99</p>
      ${prose("the console", 4)}
      <section><h2>Customers also viewed</h2><ul class="product-grid">${Array.from({ length: 8 }, (_, i) => card(i + 1)).join("")}</ul></section>
      </main>${footer}</body></html>`;
    const seen = main(page, "https://shop.example/us/store/products/switch-oled-white-117023/");
    assert.equal(seen.pageType, "product");
    assert.ok(seen.markdown.includes("Paragraph 3 about the console"));
    assert.ok(!seen.markdown.includes("Trail Runner Model 4"), "the other products go");
    // The same grid at a category's address is the page.
    assert.equal(main(page, "https://shop.example/store/consoles/").pageType, "collection");
  });

  it("a shop's grid of priced cards is a collection even when its menus hold more text", () => {
    const megaMenu = `<nav class="mega-menu">${Array.from({ length: 60 }, (_, i) => `<a href="/c/${i}">Department number ${i} and its seasonal sub-departments</a>`).join(" ")}</nav>`;
    const page = `<html><head><title>Lights</title></head><body>${megaMenu}
      <main><h1>Lights</h1><ul class="product-grid">${Array.from({ length: 6 }, (_, i) => card(i + 1)).join("")}</ul></main>${footer}</body></html>`;
    const seen = main(page, "https://shop.example/cycling/accessories/lights/");
    assert.equal(seen.pageType, "collection");
    for (let i = 1; i <= 6; i++) assert.ok(seen.markdown.includes(`Trail Runner Model ${i}`), `card ${i}`);
    assert.ok(!seen.markdown.includes("Department number 7"), "the menu goes");
  });

  it("a news section's front page of headlines under a /news/ path is a listing, not an article", () => {
    const headline = (i: number) =>
      `<div class="promo"><a href="/news/articles/c${i}x"><h3>Headline number ${i} about technology today</h3></a><span>${i}h ago</span></div>`;
    // Site-wide menus of every section and service around it, as news sites have.
    const sections = `<nav class="sections">${Array.from({ length: 40 }, (_, i) => `<a href="/news/s${i}">Section number ${i} of world news</a>`).join(" ")}</nav>`;
    const page = `<html><head><title>Technology</title></head><body>${chrome}${sections}
      <main><h1>Technology</h1><div class="grid">${Array.from({ length: 12 }, (_, i) => headline(i + 1)).join("")}</div></main>${footer}</body></html>`;
    assert.equal(main(page, "https://news.example/news/technology").pageType, "listing");
  });

  it("a feed of story cards that each link to their author, tags and comments is a listing of them all", () => {
    const storyCard = (i: number) => `<div class="feed-story">
      <a href="/u/writer${i}">Writer ${i}</a> <time>Mar ${i}</time>
      <h3><a href="/writer${i}/post-${i}">Post number ${i}: what we learned shipping feature ${i}</a></h3>
      <div class="tags">${["js", "ai", "career", "webdev"].map((t) => `<a href="/t/${t}">#${t}</a>`).join(" ")}</div>
      <a href="/writer${i}/post-${i}#comments">${i} comments</a> <span>${i + 2} min read</span></div>`;
    const page = `<html><head><title>Community feed</title></head><body>${chrome}
      <main><div class="feed">${Array.from({ length: 10 }, (_, i) => storyCard(i + 1)).join("")}</div></main>${footer}</body></html>`;
    const seen = main(page, "https://community.example/latest");
    assert.equal(seen.pageType, "listing");
    for (let i = 1; i <= 10; i++) assert.ok(seen.markdown.includes(`Post number ${i}:`), `story ${i}`);
  });

  it("is absent without onlyMainContent, and set by the caller when it knows better", () => {
    assert.equal(htmlToMarkdown(collection, { baseUrl: "https://shop.example/c/x" }).pageType, undefined);
    const told = htmlToMarkdown(article, {
      baseUrl: "https://news.example/a",
      onlyMainContent: true,
      pageType: "listing",
    });
    assert.equal(told.pageType, "listing");
  });
});

describe("main content by page type", () => {
  it("a listing keeps every entry with its link and summary", () => {
    const { markdown } = main(listing, "https://news.example/science/");
    for (let i = 1; i <= 10; i++) {
      assert.ok(markdown.includes(`https://news.example/2026/03/${i}/story-${i}`), `link ${i}`);
      assert.ok(markdown.includes(`A short summary of story ${i}`), `summary ${i}`);
    }
  });

  it("a blog's index of posts in several sections keeps every section's cards, and is no forum", () => {
    const cats = ["dinner", "quick", "vegan", "soup", "bowl", "salad"];
    const entry = (section: number, i: number) =>
      `<article class="card post-${section}${i}0 post type-post status-publish hentry category-${cats[i % 6]} category-${cats[(i + section) % 6]}">
        <a href="/recipe-${section}-${i}"><img src="/${section}-${i}.jpg" alt=""><span>${i + 3} reviews / 4.${i} average</span>
        <h3>Recipe ${i} of section ${section}</h3></a></article>`;
    const sections = ["Top rated", "Chicken", "Vegetables", "Snacks"]
      .map(
        (title, s) =>
          `<section class="py-8"><header><h2>${title} recipes</h2></header><div class="carousel">${Array.from({ length: 6 }, (_, i) => entry(s, i)).join("")}</div></section>`,
      )
      .join("");
    const html = `<html><head><title>Air fryer recipes</title></head><body class="archive">${chrome}
      <main><section><h1>Air Fryer Recipes</h1><p>I love a meal with crispiness and crunch, and these recipes deliver on a weeknight when time is short.</p></section>
      ${sections}</main>${footer}</body></html>`;
    const { markdown, pageType } = main(html, "https://recipes.example/recipes/air-fryer-recipes");
    assert.equal(pageType, "listing");
    for (let s = 0; s < 4; s++)
      for (let i = 0; i < 5; i++)
        assert.ok(markdown.includes(`Recipe ${i} of section ${s}`), `section ${s} card ${i}`);
    assert.doesNotMatch(markdown, /Privacy Policy/);
  });

  it("a collection keeps every item card (title, price, link) with its heading, not the menus", () => {
    const { markdown } = main(collection, "https://shop.example/collections/trail-shoes");
    assert.match(markdown, /^# Trail Running Shoes/m);
    for (let i = 1; i <= 12; i++) {
      assert.ok(
        markdown.includes(`[Trail Runner Model ${i}](https://shop.example/p/item-${i})`),
        `card ${i}`,
      );
      assert.ok(markdown.includes(`$${100 + i}.00`), `price ${i}`);
    }
    assert.doesNotMatch(markdown, /Privacy Policy|About/);
  });

  it("a forum keeps every post with its author, replies included", () => {
    const { markdown } = main(forum, "https://forum.example/t/which-tent-for-winter/4411");
    for (const who of ["alpinist", "snowcamper", "ranger", "late"]) assert.ok(markdown.includes(who), who);
    assert.match(markdown, /glove tip saved my weekend/);
    assert.doesNotMatch(markdown, /Privacy Policy/);
  });

  it("a thread whose replies sit in a section named comments is a forum by its board's item names, replies kept", () => {
    const reply = (who: string, text: string) =>
      `<li class="DiscussionBoard-item" itemscope itemtype="https://schema.org/Comment"><div class="DiscussionBoard-header"><a class="DiscussionBoard-username" href="/members/${who}">${who}</a> <time>Feb 3, 2026</time></div><div class="DiscussionBoard-content"><p>${text}</p></div></li>`;
    const html = `<html><head><title>Will this simple method work for a beginner?</title><meta property="og:type" content="article">
      <meta property="article:published_time" content="2026-02-01"></head><body>${chrome}
      <main><article class="ThreadView Card"><h1>Will this simple method work for a beginner?</h1>
        <div class="ThreadView-body">${prose("running ads to an affiliate landing page", 3)}</div>
        <section id="comments" class="DiscussionBoard"><ul class="DiscussionBoard-list">
          ${reply("cooler1", "It will work for sure, but do not expect it to be easy: it is a process, and you must find your own way through it.")}
          ${reply("JustinBrooke", "It is possible in 2024, but the ad networks are unreliable and can suspend your account without any explanation.")}
          ${reply("beasty513", "I am finding much cheaper clicks on other networks these days, so test a few before you spend your budget.")}
          ${["mara", "tobi", "kestrel", "ollie", "nadia", "quinn"].map((who) => reply(who, `${who} here: I tried the same plan last year, and a squeeze page in front of the offer paid for itself within a month.`)).join("")}
        </ul></section></article></main>${footer}</body></html>`;
    const r = main(html, "https://www.marketers.example/beginners-area/1488296-will-simple-method-work.html");
    assert.equal(r.pageType, "forum");
    for (const who of ["cooler1", "JustinBrooke", "beasty513"]) assert.ok(r.markdown.includes(who), who);
    assert.match(r.markdown, /cheaper clicks/);
  });

  it("a Q&A page keeps the question and every answer, not the comments under them", () => {
    const answer = (
      i: number,
    ) => `<div class="answer" id="answer-${i}"><div class="post-text"><p>Answer ${i}: press F6 to move the focus to the file list, then use the arrow keys as usual in the list.</p></div>
      <div class="comments"><ul><li class="comment"><span class="comment-copy">Comment ${i}: thanks, that worked for me too.</span></li></ul></div></div>`;
    const html = `<html><head><title>Focus the file list</title>
      <script type="application/ld+json">{"@type":"QAPage","mainEntity":{"@type":"Question"}}</script></head>
      <body>${chrome}<div id="content"><h1>Focus the file list from the keyboard?</h1>
      <div class="question"><div class="post-text"><p>How can I move the keyboard focus to the files area of Explorer without the mouse, in any version?</p></div></div>
      <div id="answers">${[1, 2, 3].map(answer).join("")}</div></div>${footer}</body></html>`;
    const { markdown, pageType } = main(html, "https://qa.example/questions/442960/focus-the-file-list");
    assert.equal(pageType, "forum");
    assert.match(markdown, /How can I move the keyboard focus/);
    for (const i of [1, 2, 3]) assert.ok(markdown.includes(`Answer ${i}: press F6`), `answer ${i}`);
    assert.doesNotMatch(markdown, /Comment \d: thanks/);
  });

  it("a service page keeps the text a section's own <header> holds, not the site's header", () => {
    const block = (title: string, text: string) =>
      `<section class="band"><header class="band__header"><h2>${title}</h2><p class="band__sub">${text}</p></header><a href="/find">Find a plan</a></section>`;
    const page = `<html><head><title>Family health insurance</title></head><body>${chrome}
      <main><div class="content"><blockquote><p>We understand choosing the right health insurance for you and your family is an important decision, and we help you find the plan that fits.</p></blockquote>
      <p>Visit your local company's website to explore your coverage options, compare plans side by side and see what each one costs.</p></div>
      ${block("Find the local option that meets your needs", "We have been a trusted provider for ninety years, taking care of families just like yours across the country.")}
      ${block("Member discounts", "Members have access to exclusive discounts on health and wellness products and services near them.")}
      ${block("Need global coverage?", "Global solutions provide health care coverage for people who live, work and travel internationally.")}
      </main>${footer}</body></html>`;
    const seen = main(page, "https://insurer.example/explore-plans/individual-family-health-insurance");
    assert.match(seen.markdown, /trusted provider for ninety years/);
    assert.match(seen.markdown, /exclusive discounts on health and wellness/);
    assert.doesNotMatch(seen.markdown, /About/, "the site's header goes");
  });

  it("a product keeps its name, price, description and specifications", () => {
    const { markdown } = main(product, "https://shop.example/products/trail-runner-7");
    for (const text of ["# Trail Runner 7", "$129.00", "rock plate", "| Weight | 280 g |"])
      assert.ok(markdown.includes(text), `${text} in ${markdown}`);
    assert.doesNotMatch(markdown, /Privacy Policy/);
  });

  it("a product keeps its description behind a 'read more' toggle, whatever the toggle's id says", () => {
    const page = `<html><head><title>Stoneware mug</title><meta property="og:type" content="product"></head><body>${chrome}
      <main><h1>Stoneware mug</h1><p class="price">USD 60.00</p>
      <div class="product_details"><h2>Item details</h2><ul><li>Materials: Ceramic</li><li>Capacity: 13.5 fluid ounces</li></ul>
      <div id="content-toggle-product-details-read-more" class="wt-content-toggle__body wt-content-toggle__body--truncated">
        <p>This two-tone stoneware mug has the perfect curve to nestle between your fingers on a cold day, thrown by hand from clay I make myself.</p>
      </div><button>Learn more about this item</button></div>
      <section><h2>Reviews for this shop</h2>${prose("how the mugs arrived", 8)}</section></main>${footer}</body></html>`;
    const seen = main(page, "https://shop.example/listing/615442107/stoneware-mug");
    assert.equal(seen.pageType, "product");
    assert.match(seen.markdown, /This two-tone stoneware mug has the perfect curve/);
    assert.match(seen.markdown, /Capacity: 13\.5 fluid ounces/);
  });

  it("a product keeps the sections whose accordion toggles are their headings' text", () => {
    const panel = (n: number, title: string, body: string) =>
      `<div class="panel"><h2><button aria-expanded="${n === 1}" aria-controls="p${n}"><span><p>${title}</p></span></button></h2>
      <div id="p${n}" role="region" aria-hidden="${n !== 1}">${body}</div></div>`;
    const page = `<html><head><title>Vinyl Executive Chair</title><meta property="og:type" content="product"></head><body>${chrome}
      <main><h1>Vinyl Executive Chair</h1><p>$289.99</p>
      ${panel(1, "Description", `<ul><li>Hand-applied individual antique brass head nail trim</li></ul>${prose("the chair", 4)}`)}
      ${panel(2, "Specifications", "<dl><dt>Overall Product Weight</dt><dd>58 lb.</dd><dt>Seat Material</dt><dd>Upholstered</dd></dl>")}
      </main>${footer}</body></html>`;
    const seen = main(page, "https://shop.example/furniture/pdp/vinyl-executive-chair-bop1026.html");
    assert.equal(seen.pageType, "product");
    assert.match(seen.markdown, /## Description/);
    assert.match(seen.markdown, /## Specifications/);
    assert.match(seen.markdown, /Overall Product Weight/);
  });

  it("a product built of separate blocks keeps its name, price, description and specifications, not what customers say", () => {
    const spec = (k: string, v: string) => `<dt>${k}</dt><dd>${v}</dd>`;
    const html = `<html><head><title>Executive chair</title></head><body>${chrome}
      <div id="S:1"><div><div class="hd"><a href="/brand/boss">Boss Office</a><h1>Vinyl Executive Chair</h1>
        <span class="price">$659.99</span> <a href="/reviews">369 Reviews</a></div></div></div>
      <div id="S:2"><div class="rv"><h2>Customers say</h2><p>Customers praise this chair's comfort, ease of assembly and stylish appearance. Many appreciate its materials and construction, finding it sturdy and well made for the price, though some report minor assembly issues.</p>
        <p>AI-generated from customer reviews, updated weekly from what buyers write after a month of use.</p></div></div>
      <div id="S:3"><div class="panel"><h2>Description</h2><p>A high-back executive chair in vinyl, with hand-applied antique brass nail trim along the arms and a solid wood frame finished in mahogany, made for long days at a desk.</p><ul><li>Padded arms</li><li>Tilt lock</li></ul></div>
        <div class="panel"><h2>Specifications</h2><dl>${spec("Seat height", "20 in")}${spec("Weight capacity", "275 lb")}${spec("Frame", "Wood")}</dl></div></div>
      ${footer}</body></html>`;
    const { markdown } = main(html, "https://shop.example/furniture/pdp/vinyl-executive-chair-bop1026.html");
    for (const text of [
      "# Vinyl Executive Chair",
      "$659.99",
      "antique brass nail trim",
      "Weight capacity",
      "275 lb",
    ])
      assert.ok(markdown.includes(text), `${text} in ${markdown}`);
    assert.doesNotMatch(markdown, /Customers praise|Privacy Policy/);
  });
});
