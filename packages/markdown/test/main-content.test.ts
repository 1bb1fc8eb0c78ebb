import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { htmlToMarkdown, MarkdownOptionError } from "../src/index.ts";

const baseUrl = "https://example.com/news/park";
const news = readFileSync(join(import.meta.dirname, "golden", "news-article.main.html"), "utf8");
const main = (html: string, extra: Record<string, unknown> = {}) =>
  htmlToMarkdown(html, { baseUrl, onlyMainContent: true, ...extra });

const ARTICLE = [
  "The city opened its long-awaited river park",
  "## What is there",
  "- Two playgrounds and a skate park",
  "Construction cost 48 million euros",
  "> “We finally have somewhere",
  "[park's page](https://example.com/parks/river)",
];

describe("onlyMainContent on a news article", () => {
  const { markdown, mainContent, title } = main(news);

  it("keeps the article body with its structure", () => {
    assert.equal(mainContent, "extracted");
    assert.equal(title, "City opens new river park – The Daily Example");
    for (const text of ARTICLE) assert.ok(markdown.includes(text), `missing ${JSON.stringify(text)}`);
  });

  it("drops navigation, header, footer, cookie banner, share and ad widgets", () => {
    for (const text of [
      "We use cookies",
      "Accept all",
      "Skip to content",
      "[News]",
      "Share on Facebook",
      "Tweet",
      "Advertisement",
      "All rights reserved",
      "About us",
    ]) {
      assert.ok(!markdown.includes(text), `kept ${JSON.stringify(text)}`);
    }
  });

  it("drops related links, the sidebar, tags and reader comments", () => {
    for (const text of [
      "Related stories",
      "Council approves",
      "Newsletter",
      "Most read",
      "Tags:",
      "comments",
    ]) {
      assert.ok(!markdown.includes(text), `kept ${JSON.stringify(text)}`);
    }
    assert.ok(!markdown.includes("Went there on Sunday"));
    assert.ok(!markdown.includes("buses are falling apart"));
  });
});

describe("onlyMainContent on other page shapes", () => {
  it("keeps a short run of event cards with the page's heading and intro in a banner, without the site's chrome", () => {
    const ev = (
      d: string,
      t: string,
      v: string,
    ) => `<div class="event-item"><div class="event-date">${d}</div>
      <div class="event-info"><h4><a href="/events/${t.toLowerCase().replace(/[^a-z]+/g, "-")}">${t}</a></h4>
      <p class="venue">${v}</p><p class="time">7:30 pm</p></div></div>`;
    const { markdown } = main(`<html><body><header class="site-header"><a href="/">The Corn Exchange</a><nav>
      <a href="/whats-on">What's on</a><a href="/visit">Visit</a><a href="/hire">Hire</a><a href="/support">Support us</a></nav></header>
      <div class="page-banner"><h1>What's on</h1><p>Concerts, comedy, theatre and family shows at the Corn Exchange.</p></div>
      <div class="filters"><form><select><option>All events</option><option>Music</option></select><button>Filter</button></form></div>
      <div class="events-list">${ev("04 Dec", "The Winter Folk Festival", "Main Hall")}${ev("06 Dec", "Stand-up Saturday", "Studio")}
      ${ev("11 Dec", "A Christmas Carol", "Main Hall")}${ev("13 Dec", "City Brass Band", "Main Hall")}
      ${ev("18 Dec", "Family Panto: Aladdin", "Main Hall")}${ev("31 Dec", "New Year's Eve Ceilidh", "Ballroom")}</div>
      <div class="newsletter"><h3>Never miss a show</h3><p>Sign up to our newsletter.</p><form><input type="email"><button>Sign up</button></form></div>
      <footer><p>The Corn Exchange, Market Square</p><a href="/privacy">Privacy</a></footer></body></html>`);
    assert.match(markdown, /^# What's on\n\nConcerts, comedy, theatre and family shows/);
    for (const t of ["The Winter Folk Festival", "Stand-up Saturday", "New Year's Eve Ceilidh"])
      assert.ok(markdown.includes(t), t);
    for (const chrome of ["Support us", "Never miss a show", "Market Square", "Filter"])
      assert.ok(!markdown.includes(chrome), `${chrome} is the site's, not the page's: ${markdown}`);
  });

  it("keeps a board index's columns (topics and posts counts), whatever their cells' classes say", () => {
    const row = (
      name: string,
      i: number,
    ) => `<li class="row"><dl class="row-item"><dt><div class="list-inner">
      <a href="/viewforum.php?f=${i}" class="forumtitle">${name}</a><br>Talk about ${name.toLowerCase()} and everything near it.</div></dt>
      <dd class="topics">${12 + i * 7} <dfn>Topics</dfn></dd><dd class="posts">${140 + i * 31} <dfn>Posts</dfn></dd>
      <dd class="lastpost"><span><dfn>Last post </dfn>by <a href="/memberlist.php?u=${i}">user${i}</a><br>Sun Nov 22, 2026</span></dd></dl></li>`;
    const section = (
      title: string,
      names: string[],
    ) => `<div class="forabg"><ul class="topiclist"><li class="header">
      <dl class="row-item"><dt><a href="/viewforum.php">${title}</a></dt><dd class="topics">Topics</dd><dd class="posts">Posts</dd>
      <dd class="lastpost"><span>Last post</span></dd></dl></li></ul><ul class="topiclist forums">${names.map(row).join("")}</ul></div>`;
    const { markdown } =
      main(`<html><body><div class="headerbar"><a href="/">Example Boards</a><p>A place for gardeners</p></div>
      <div class="navbar"><ul><li><a href="/faq.php">FAQ</a></li><li><a href="/ucp.php?mode=login">Login</a></li></ul></div>
      <div id="page-body"><p>It is currently Sun Nov 29, 2026 7:01 am</p>
      ${section("Growing", ["Vegetables", "Fruit trees", "Herbs", "Flowers"])}${section("Community", ["Introductions", "Show your garden", "Swaps and seeds"])}
      <h3>Statistics</h3><p>Total posts 2841 • Total topics 377 • Total members 212</p></div>
      <div class="footer"><a href="/privacy">Privacy</a> Powered by phpBB</div></body></html>`);
    for (let i = 0; i < 4; i++) {
      assert.ok(markdown.includes(`${12 + i * 7} Topics`), `forum ${i}'s topics count: ${markdown}`);
      assert.ok(markdown.includes(`${140 + i * 31} Posts`), `forum ${i}'s posts count`);
    }
  });

  it("finds documentation next to a long navigation sidebar", () => {
    const nav = Array.from(
      { length: 40 },
      (_, i) => `<li><a href="/docs/page-${i}">Page ${i} of the guide</a></li>`,
    );
    const html = `<html><body>
      <div class="docs-layout">
        <div class="toc"><ul>${nav.join("")}</ul></div>
        <div class="docs-body">
          <h1>Configuring the client</h1>
          <p>The client reads its settings from the environment, then from a file in the working directory, and finally from the arguments it was given.</p>
          <pre><code class="language-sh">client --config ./client.toml --verbose</code></pre>
          <p>Settings given later override earlier ones, so an argument always wins over the file and the environment.</p>
        </div>
      </div></body></html>`;
    const { markdown, mainContent } = main(html);
    assert.equal(mainContent, "extracted");
    assert.ok(markdown.includes("# Configuring the client"));
    assert.ok(markdown.includes("```sh\nclient --config ./client.toml --verbose\n```"));
    assert.ok(!markdown.includes("Page 7 of the guide"));
  });

  it("keeps a product description and its specification table", () => {
    const html = `<html><body>
      <nav><a href="/">Shop</a> <a href="/cart">Cart</a> <a href="/account">Account</a></nav>
      <div class="product">
        <h1>Trail Runner 2</h1>
        <div class="description">
          <p>A light trail shoe with a grippy outsole, a rock plate and a roomy toe box for long days on rough ground.</p>
          <p>The upper is made from recycled mesh that dries quickly after river crossings and keeps grit out.</p>
        </div>
        <table><tr><th>Weight</th><td>280 g</td></tr><tr><th>Drop</th><td>6 mm</td></tr></table>
      </div>
      <section class="related"><h2>You may also like</h2><ul>
        <li><a href="/p/1">Road Runner</a></li><li><a href="/p/2">Trail Runner 1</a></li></ul></section>
      <footer><a href="/terms">Terms</a> <a href="/privacy">Privacy</a></footer>
    </body></html>`;
    const { markdown, mainContent } = main(html);
    assert.equal(mainContent, "extracted");
    assert.ok(markdown.includes("A light trail shoe with a grippy outsole"));
    assert.ok(markdown.includes("| Weight | 280 g |"));
    assert.ok(!markdown.includes("You may also like"));
    assert.ok(!markdown.includes("Terms"));
    assert.ok(!markdown.includes("Cart"));
  });

  it("keeps a page's own FAQ whose answers link on, though its items look like a grid of other items", () => {
    const faq = ["What is covered?", "How much does it cost?", "Are old pets covered?", "Can I cancel?"]
      .map(
        (q, i) =>
          `<div class="faq-item"><div class="q">${q}</div><div class="a"><p>Answer ${i}: it depends on the plan. See <a href="/guide/${i}">plan ${i}</a>.</p></div></div>`,
      )
      .join("");
    const html = `<html><head><script type="application/ld+json">{"@type":"Product","name":"Pet Cover"}</script></head>
      <body><div class="pdp"><h1>Pet Cover</h1><p>$19.00 a month</p>
        <div class="details"><p>Accident and illness cover for cats and dogs with no upper age limit and a fast claims process.</p>
        <p>Vet bills are paid back within five days of a claim, and routine care can be added to any plan.</p>
        <p>Every plan covers dental accidents, hereditary conditions and behavioural therapy, and you choose your own vet anywhere in the country.</p>
        <p>Premiums depend on the breed, the age and where you live; a multi-pet discount applies from the second pet on.</p></div>
        <section><h2>Pet insurance FAQs</h2><div class="faq">${faq}</div></section>
      </div></body></html>`;
    const { markdown, pageType } = main(html, { baseUrl: "https://shop.example/products/pet-cover" });
    assert.equal(pageType, "product");
    assert.ok(markdown.includes("Accident and illness cover"));
    assert.ok(markdown.includes("Are old pets covered?"), markdown);
    assert.ok(markdown.includes("Answer 3: it depends on the plan"), markdown);
    assert.ok(markdown.includes("multi-pet discount"));
  });

  it("keeps a product's description and specs but not its reviews, questions or other products", () => {
    const reviews = Array.from(
      { length: 6 },
      (_, i) =>
        `<div class="review-item"><h4>Review ${i}</h4><p>Reviewer ${i} found the bottle kept ice for a whole day in the car, and the lid never leaked once on the trail.</p></div>`,
    );
    const html = `<html><head><script type="application/ld+json">{"@type":"Product","name":"Steel Bottle"}</script></head>
      <body><div class="pdp">
        <h1>Steel Bottle 1 l</h1><p>$29.00</p>
        <div class="details"><h2>Description</h2>
          <p>A double-walled steel bottle that keeps drinks cold for a day and hot for twelve hours, with a leak-proof lid.</p>
          <p>Its powder coat resists scratches, and the wide mouth takes ice cubes and a brush for cleaning.</p>
          <dl><dt>Volume</dt><dd>1 l</dd><dt>Weight</dt><dd>410 g</dd></dl>
        </div>
        <section><h2>Customer Reviews (6)</h2>${reviews.join("")}</section>
        <section><h2>Questions &amp; Answers</h2><p>Does it fit a car cup holder? Only the 500 ml bottle fits a standard cup holder, this one is wider.</p></section>
        <section><h2>Customers also viewed</h2><p>Steel Bottle 500 ml, Steel Mug, Bamboo Lid and other things people looked at after this one.</p></section>
        <div><h3>Most Helpful Favorable Review</h3><p>47 people found this review helpful</p>
          <p>The straps on its carrying loop are a game changer, and the bottle survived a fall onto rocks.</p></div>
        <div><h3>Most Helpful Critical Review</h3>
          <p>Not what I expected: the powder coat of my second bottle chipped within a week of light use.</p></div>
      </div></body></html>`;
    const { markdown, pageType } = main(html, { baseUrl: "https://shop.example/products/steel-bottle" });
    assert.equal(pageType, "product");
    assert.ok(markdown.includes("A double-walled steel bottle"));
    assert.ok(markdown.includes("410 g"));
    for (const gone of [
      "Customer Reviews",
      "kept ice for a whole day",
      "Questions",
      "cup holder",
      "also viewed",
      "game changer",
      "chipped within a week",
    ])
      assert.ok(!markdown.includes(gone), `kept ${JSON.stringify(gone)}`);
  });

  it("keeps a product gallery's pictures without alt texts that only repeat the product's name", () => {
    const name = "ASUS ROG Strix GeForce RTX 4080 SUPER White Edition Gaming Graphics Card (16GB GDDR6X)";
    const views = [2, 3, 4, 5]
      .map((n) => `<li><img src="/img/v${n}.jpg" alt="Alt view image ${n} of 5 - ${name}"></li>`)
      .join("");
    const html = `<html><body><nav><a href="/">Home</a> <a href="/gpu">Graphics cards</a></nav>
      <main><div class="product"><h1>${name}</h1>
        <ul class="gallery"><li><img src="/img/v1.jpg" alt="Main image of ${name}"></li>${views}
          <li><img src="/img/back.jpg" alt="The card's back plate with its vented aluminium shroud and the ROG logo lit in white"></li></ul>
        <div class="price">$1,199.99</div>
        <p>The ROG Strix GeForce RTX 4080 SUPER White Edition keeps its temperatures low with three axial-tech fans and a vapor chamber, and its backplate vents let the heat out the top of your case.</p>
        <table><tr><th>Memory</th><td>16GB GDDR6X</td></tr><tr><th>Boost clock</th><td>2670 MHz</td></tr></table>
      </div></main></body></html>`;
    const { markdown } = main(html, { baseUrl: "https://shop.example/p/N82E16814126712" });
    assert.match(markdown, /\$1,199\.99/);
    assert.match(markdown, /three axial-tech fans/);
    for (let n = 1; n <= 5; n++) assert.ok(markdown.includes(`/img/v${n}.jpg`), `lost picture ${n}`);
    assert.doesNotMatch(markdown, /Alt view image|Main image of/, "alt texts that repeat the name");
    assert.match(
      markdown,
      /!\[The card's back plate with its vented aluminium shroud/,
      "a describing alt stays",
    );
  });

  it("keeps a category's cards without the controls on each (add to cart, quick view, compare)", () => {
    const cards = Array.from(
      { length: 8 },
      (
        _,
        i,
      ) => `<li class="card"><a href="/p/mug-${i}"><img src="/img/${i}.jpg" alt="Stoneware mug number ${i}">Stoneware mug number ${i}, glazed by hand</a>
        <span class="price">$${20 + i}.00</span><button>Add to cart</button><a href="#qv">Quick view</a><label>Compare</label>
        <div class="rating"><span>Rating:</span><span class="stars" style="width:80%"></span></div>${i % 2 ? `<a href="/p/mug-${i}#notify">Notify Me</a>` : ""}</li>`,
    );
    const html = `<html><body><main><h1>Mugs</h1><p>Handmade mugs from our studio, each one thrown, glazed and fired by hand.</p>
      <div class="toolbar"><span>Sort by: Featured</span></div><ul class="grid">${cards.join("")}</ul></main></body></html>`;
    const { markdown, pageType } = main(html, { baseUrl: "https://shop.example/collections/mugs" });
    assert.equal(pageType, "collection");
    for (let i = 0; i < 8; i++) assert.ok(markdown.includes(`Stoneware mug number ${i}`), `card ${i}`);
    assert.ok(markdown.includes("$27.00"));
    // Each picture stays, without an alt text that repeats the title beside it.
    assert.ok(markdown.includes("![](https://shop.example/img/3.jpg)"), markdown);
    assert.ok(!markdown.includes("![Stoneware mug number 3]"));
    for (const gone of ["Add to cart", "Quick view", "Compare", "Sort by", "Rating:", "Notify Me"])
      assert.ok(!markdown.includes(gone), `kept ${JSON.stringify(gone)}`);
  });

  it("drops a card picture's alt text that tells the card's title at length, and keeps one that says something else", () => {
    const names = [
      "Wit High Back Task Chair",
      "Novo Mid Back Task Chair",
      "Zone Tasker",
      "Branch Ergonomic Chair",
    ];
    const cards = names.map(
      (name, i) => `<li class="product"><article class="card"><figure><div class="img-box">
        <img src="/img/${i}.jpg" alt="${i === 3 ? "A woman sitting at a standing desk in a sunny loft" : `${name} - Work From Home Series, black seat, fog mesh and white frame`}">
        </div></figure><div class="card-body"><p class="card-title"><a href="/p/${i}">${name}</a></p>
        <span class="price">$${300 + i}.00</span><p class="brand">SitOnIt</p></div></article></li>`,
    );
    const html = `<html><body><main><h1>Mesh chairs</h1><p>Mesh office chairs keep you cool through long days, with backs that breathe and seats that give.</p>
      <ul class="grid">${cards.join("")}</ul></main></body></html>`;
    const { markdown } = main(html, { baseUrl: "https://shop.example/seating/mesh/" });
    for (const name of names) assert.ok(markdown.includes(`[${name}](https://shop.example/p/`), name);
    // The pictures stay; the alt texts that retell their card's title go.
    for (let i = 0; i < 3; i++)
      assert.ok(markdown.includes(`![](https://shop.example/img/${i}.jpg)`), markdown);
    assert.doesNotMatch(markdown, /Work From Home Series/);
    assert.ok(markdown.includes("![A woman sitting at a standing desk in a sunny loft]"), markdown);
  });

  it("drops the alt text of a thumbnail that links where its card's title links, and keeps a lead picture's", () => {
    const stories = [
      ["/news/permits", "House passes permits bill", "The Capitol dome on a cloudy day"],
      ["/news/sap-tool", "IBM releases migration tool", "A building with a corporate logo in Germany"],
      ["/news/chips", "Chip makers expand plants", "Workers in clean suits beside a wafer line"],
      ["/news/cloud", "Cloud spending keeps rising", "Server racks in a data center aisle"],
    ];
    const cards = stories.map(
      ([href, title, alt]) => `<li class="story"><a href="${href}"><img src="${href}.jpg" alt="${alt}"></a>
        <h3><a href="${href}">${title}</a></h3><p>What the story says in a sentence or two, for readers of the topic page.</p></li>`,
    );
    const html = `<html><body><main><h1>Cloud</h1><img src="/lead.jpg" alt="A map of the world's data centers">
      <p>Our coverage of cloud computing: vendors, spending, regulation and the people who run the infrastructure.</p>
      <ul class="stories">${cards.join("")}</ul></main></body></html>`;
    const { markdown } = main(html, { baseUrl: "https://news.example/topic/cloud/" });
    for (const [href, title, alt] of stories) {
      assert.ok(markdown.includes(`[${title}](https://news.example${href})`), title);
      assert.ok(markdown.includes(`![](https://news.example${href}.jpg)`), markdown);
      assert.ok(!markdown.includes(alt as string), alt);
    }
    assert.ok(markdown.includes("![A map of the world's data centers]"), markdown);
  });

  it("drops machine-guessed alt texts and a picture's alt said again by its copy right after it", () => {
    const html = `<html><body><main><h1>Leather wallet</h1>
      <div class="gallery"><img src="/w1.jpg" alt="May include: A brown leather wallet with a plaid lining.">
      <img src="/w2.jpg" alt="Tan wallet, open, showing six card slots"><img src="/w2-zoom.jpg" alt="Tan wallet, open, showing six card slots"></div>
      <p>A slim bifold wallet in vegetable-tanned leather, stitched by hand, with six card slots and a note pocket.</p>
      <div class="review"><img src="/stars5.svg" alt="Rated 5 out of 5"><p>Ana: fits perfectly and the leather is lovely.</p></div>
      <div class="review"><img src="/stars5.svg" alt="Rated 5 out of 5"><p>Ben: sturdy, well made, and it arrived quickly.</p></div>
      </main></body></html>`;
    const { markdown } = main(html, { baseUrl: "https://shop.example/listing/wallet" });
    assert.ok(markdown.includes("![](https://shop.example/w1.jpg)"), markdown);
    assert.doesNotMatch(markdown, /May include/);
    assert.equal(markdown.split("Tan wallet, open, showing six card slots").length - 1, 1, markdown);
    assert.ok(markdown.includes("https://shop.example/w2-zoom.jpg"), markdown);
    // The same picture beside each review's own text stays with each.
    assert.equal(markdown.split("Rated 5 out of 5").length - 1, 2, markdown);
  });

  it("does not take a script's font-measuring filler (one word repeated) for the content", () => {
    const stories = Array.from(
      { length: 6 },
      (_, i) =>
        `<li><h3><a href="/story-${i}">Story ${i}: the startup that raised again</a></h3><p>By Reporter ${i}</p></li>`,
    );
    const html = `<html><body><main><h1>Latest</h1><ul>${stories.join("")}</ul>
      <p>Our reporters cover startups, venture capital and the people who build them, every day of the week.</p></main>
      <div>${"word ".repeat(300)}</div></body></html>`;
    const { markdown } = main(html);
    assert.ok(!markdown.includes("word word"));
    assert.ok(markdown.includes("Our reporters cover startups"));
  });

  it("does not take a template's Lorem ipsum placeholder for the content", () => {
    const lorem =
      "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.";
    const html = `<html><body><main><h1>Insurer rankings 2025</h1>
      <p>The top property and casualty insurers grew their premiums by nine percent last year, led by personal auto.</p>
      <div class="callout"><h3>Heading Line</h3><p>${lorem}</p></div>
      <p>Commercial lines were flat, and the combined ratio of the whole industry improved for the second year running.</p></main></body></html>`;
    const { markdown } = main(html, {
      baseUrl: "https://research.example/insurer-rankings",
      pageType: "article",
    });
    assert.ok(!markdown.includes("Lorem ipsum"), markdown);
    for (const kept of ["grew their premiums", "combined ratio of the whole industry"])
      assert.ok(markdown.includes(kept), `lost ${kept}\n${markdown}`);
  });

  it("keeps a thread's posts and authors without the engine's vote counts, badges and stamps", () => {
    const post = (who: string, body: string, votes: number) => `<div class="post">
      <div class="votes"><span>${votes}</span></div>
      <div class="post-text"><p>${body}</p></div>
      <div class="signature"><span>answered Jul 7, 2012 at 3:07</span><a href="/users/${who}">${who}</a>
        <span>23.8k14 gold badges88 silver badges124 bronze badges</span><a href="#share">Share</a></div></div>`;
    const html = `<html><body><main><h1>Set focus to the files pane from the keyboard</h1>
      ${post("pup", "Is there a keyboard shortcut that moves the focus to the files pane of the explorer window?", 67)}
      ${post("iglvzx", "You can bind a hotkey that focuses the pane control directly, then press space to select the first file.", 13)}
      ${post("sam", "Press F6 or Tab a few times; the focus cycles through the address bar, the tree and then the files.", 2)}
    </main></body></html>`;
    const { markdown, pageType } = main(html, {
      baseUrl: "https://forum.example/threads/focus-files-pane.4421/",
    });
    assert.equal(pageType, "forum");
    for (const kept of ["Is there a keyboard shortcut", "You can bind a hotkey", "Press F6", "iglvzx", "sam"])
      assert.ok(markdown.includes(kept), `lost ${JSON.stringify(kept)}`);
    for (const gone of ["gold badges", "answered Jul", "Share"])
      assert.ok(!markdown.includes(gone), `kept ${JSON.stringify(gone)}`);
    assert.doesNotMatch(markdown, /^67$/m, "a vote count on a line of its own");
  });

  it("keeps sections whose names only look like furniture: component prefixes, accordions, camelCase words", () => {
    const para = (topic: string) =>
      `<p>Our ${topic} team works with yours from the first workshop to the last review, and stays on call for a year after launch.</p>`;
    const html = `<html><body>
      <nav class="mainNav"><a href="/">Home</a> <a href="/services">Services</a> <a href="/about">About</a></nav>
      <main><h1>Security services</h1><div class="intro">${para("strategy")}${para("planning")}${para("design")}</div>
        <div class="cmp-text">${para("assessment")}</div>
        <div class="contact_section lm_navSource"><h2>Managed detection</h2>${para("detection")}</div>
        <div class="panel-group accordion" role="tablist"><h3>How long does it take?</h3>${para("delivery")}</div>
        <div class="grid-items hide-read-more-ad no-sidebar"><h3>Incident response</h3>${para("response")}</div>
      </main></body></html>`;
    const { markdown, mainContent } = main(html, { baseUrl: "https://consult.example/services/security" });
    assert.equal(mainContent, "extracted");
    for (const kept of [
      "strategy team",
      "assessment team",
      "detection team",
      "delivery team",
      "response team",
    ])
      assert.ok(markdown.includes(kept), `lost ${JSON.stringify(kept)}`);
    assert.ok(!markdown.includes("[About]"), "the camelCase mainNav is still navigation");
  });

  it("keeps every band of a landing page, not only the one with the most prose", () => {
    const band = (inner: string, cls = "grid") =>
      `<div class="py-24"><div class="container"><div class="${cls}">${inner}</div></div></div>`;
    const more = `<ul><li><a href="/features">See all features</a></li><li><a href="/integrations">Browse integrations</a></li><li><a href="/demo">Book a demo</a></li></ul>`;
    const html = `<html><body>
      <header class="site-header"><a href="/">Acme</a><nav><a href="/pricing">Pricing</a> <a href="/blog">Blog</a> <a href="/login">Log in</a></nav></header>
      <main>
        ${band(`<h1>Payroll that runs itself</h1><p>Acme pays your team on time in forty countries, files every tax form before its deadline and keeps each record ready for the day the auditor calls.</p><a href="/signup">Start your free trial</a>`)}
        ${band(`<h2>What it does</h2><p>Every tax form is filed for you before its deadline, in each country where you employ people, and each filing is kept with its receipt from the tax office.</p><p>See salaries, benefits and contractor invoices for the whole company on one screen, with each change recorded beside who made it and when it was made.</p>${more}`)}
        ${band(
          `<h2>Why we built Acme</h2>
          <p>Payroll software was built for accountants, not for the people who run a company. It is slow to learn, it hides its prices and it leaves the filings to you. That is why we built Acme, a simple but complete payroll service for small teams.</p>
          <p>We moved our own payroll of three hundred people in two weeks, and the first run went without a single correction. Support answers every question the same day, and nobody keeps a calendar of deadlines any more.</p>
          <p>Before Acme we kept four spreadsheets and a calendar of deadlines. Now the filings happen on their own and the auditors get their reports from the dashboard without asking us for anything.</p>`,
          "prose",
        )}
        ${band(`<h2>Simple pricing</h2><p>Six dollars per employee per month, with filings, benefits, contractor payments and same-day support included in every plan, whatever the size of your team.</p>`)}
      </main>
      <footer><a href="/privacy">Privacy</a> <a href="/terms">Terms</a> <p>© 2026 Acme Inc.</p></footer>
    </body></html>`;
    const { markdown, mainContent } = main(html, { baseUrl: "https://acme.example/" });
    assert.equal(mainContent, "extracted");
    for (const kept of [
      "# Payroll that runs itself",
      "## What it does",
      "See salaries, benefits",
      "## Why we built Acme",
      "Before Acme we kept four spreadsheets",
      "## Simple pricing",
      "Six dollars per employee",
    ])
      assert.ok(markdown.includes(kept), `lost ${JSON.stringify(kept)}`);
    for (const gone of ["[Log in]", "[Privacy]", "© 2026"])
      assert.ok(!markdown.includes(gone), `kept ${gone}`);
  });

  it("gathers a landing page's bands from one template though its card band weighs as a link list", () => {
    const band = (id: string, inner: string) =>
      `<div id="${id}" class="Section__Band-sc-4l5hhw-0 jwTpaH"><div class="Section__Inner-sc-4l5hhw-1">${inner}</div></div>`;
    const guides = [
      "Get started with Linux virtual machines: create, size, connect to and secure your first server",
      "How to install and use Docker on Ubuntu, from the package repository to your first container",
      "How to choose a cloud service provider for your team, with a checklist of questions to ask",
    ]
      .map((t, i) => `<a href="/guides/${i}" class="Card-sc-1"><p>${t}</p><span>Read the guide</span></a>`)
      .join("");
    const html = `<html><body><div class="Layout-sc-9352c207-0">
      <header class="Header-sc-1"><nav><a href="/products">Products</a> <a href="/pricing">Pricing</a> <a href="/docs">Docs</a></nav></header>
      ${band("hero", `<h1>The inference cloud built for scale</h1><p>Train, run and scale models without surprise costs.</p><a href="/signup">Sign up</a>`)}
      ${band("customers", `<h2>Customers growing with us</h2><p>CTO, ScraperAPI</p><p>Running it elsewhere would cost 250% more.</p><p>CEO, Servd</p><p>How Servd scaled its CMS platform.</p>`)}
      ${band(
        "why",
        `<h2>A unified cloud to build full-stack apps</h2>
        <p>Persistent compute, high-throughput storage and scalable runtime environments give you everything you need to go from an idea to an agent in production, fast, with predictable pricing, generous bandwidth and low inference costs, so there are never any surprises.</p>`,
      )}
      ${band("dive-in", `<h2>Dive in</h2><p>Our cloud is built to be simple, so you can spend your time building apps.</p><div class="Cards-sc-2">${guides}</div>`)}
      ${band("start", `<h2>Start building today</h2><p>Sign up and get two hundred dollars in credit for your first sixty days, with support from real people included.</p>`)}
      <footer class="Footer-sc-3"><a href="/about">About</a> <a href="/careers">Careers</a> <a href="/terms">Terms</a></footer>
    </div></body></html>`;
    const { markdown, pageType } = main(html, { baseUrl: "https://cloud.example/" });
    assert.equal(pageType, "service");
    for (const kept of [
      "# The inference cloud built for scale",
      "Running it elsewhere would cost 250% more",
      "Persistent compute",
      "two hundred dollars in credit",
    ])
      assert.ok(markdown.includes(kept), `lost ${JSON.stringify(kept)}\n${markdown}`);
    assert.ok(!markdown.includes("[Careers]"));
  });

  it("leaves out a footer's list of towns and zip codes, however long", () => {
    const towns =
      "Beverly Hills Los Angeles Irvine Perris Rosamond Hacienda Heights Chino Piru Rancho Cucamonga Highland Inglewood Pasadena Monrovia Garden Grove ".repeat(
        12,
      );
    const zips = Array.from({ length: 150 }, (_, i) => String(90000 + i * 7)).join(" ");
    const item = (name: string, price: string) =>
      `<li><h3><a href="/rent/${name.toLowerCase().replace(/ /g, "-")}">${name}</a></h3><p>${price} per day. Delivered, set up and collected by our crew anywhere in the county.</p></li>`;
    const html = `<html><body><header><nav><a href="/">Home</a> <a href="/rentals">Rentals</a></nav></header>
      <main><h1>Fitness equipment rentals</h1>
        <p>Rent treadmills, bikes and weights for your event or your home gym, by the day or by the month, with delivery included.</p>
        <ul>${item("Treadmill", "$89")}${item("Spin bike", "$59")}${item("Rowing machine", "$69")}${item("Dumbbell set", "$39")}</ul></main>
      <footer id="footer"><div class="zipcodes"><div>${towns}</div><div>${zips}</div></div><p>© 2026 Rentals Inc.</p></footer>
    </body></html>`;
    const { markdown, mainContent } = main(html, { baseUrl: "https://rentals.example/los-angeles/fitness" });
    assert.equal(mainContent, "extracted");
    for (const kept of ["Rent treadmills", "Spin bike", "$69 per day"])
      assert.ok(markdown.includes(kept), `lost ${kept}`);
    for (const gone of ["Rancho Cucamonga", "90007", "© 2026"])
      assert.ok(!markdown.includes(gone), `kept ${gone}`);
  });

  it("does not take a newsletter box's pitch for a product page's content", () => {
    const spec = (name: string, value: string) =>
      `<div class="k3Lq"><dt class="p0Xz">${name}:</dt><dd class="r8Vw">${value}</dd></div>`;
    const html = `<html><body><header class="t1Ab"><a href="/">Home</a> <a href="/men">Men</a></header>
      <main class="q9Rt"><div class="g4Hs"><img src="/img/jacket-front.jpg" alt="Black jacket, front"></div>
        <div class="x7Yu"><h1 class="n2Kd"><div><a href="/brand/" title="Brand">Northway</a></div><span>Faux leather jacket - black</span></h1>
          <p class="c5Pl">€49.99 VAT included</p><button>Add to bag</button>
          <h2>Material &amp; care</h2><dl>${spec("Outer fabric material", "100% polyester")}${spec("Lining", "100% cotton")}${spec("Care instructions", "Machine wash at 30 °C")}</dl>
          <h2>Details</h2><dl>${spec("Collar", "Turn-down collar")}${spec("Fastening", "Zip")}${spec("Article number", "NW22T0PL-Q11")}</dl></div></main>
      <div class="s8Fg"><div class="m3Bv"><h2 class="w6Nc">Deals, drops and trends</h2><p class="w6Nd">Straight to your inbox</p>
        <div><span>Enjoy discounts, find fashion inspiration and discover fresh arrivals with our curated newsletters.</span></div></div>
        <form class="f2Lk"><label for="email-input">Your email address</label><input id="email-input" type="email">
          <input type="radio" name="category" value="WOMEN" aria-label="Women's fashion"><button type="submit">Sign me up</button></form></div>
      <footer><a href="/help">Help</a></footer></body></html>`;
    const { markdown, mainContent, pageType } = main(html, {
      baseUrl: "https://shop.example/northway-faux-leather-jacket-black-nw22t0pl-q11.html",
      pageType: "product",
    });
    assert.equal(mainContent, "extracted");
    assert.equal(pageType, "product");
    for (const kept of [
      "Faux leather jacket - black",
      "€49.99",
      "100% polyester",
      "Turn-down collar",
      "NW22T0PL-Q11",
    ])
      assert.ok(markdown.includes(kept), `lost ${JSON.stringify(kept)}\n${markdown}`);
    for (const gone of ["Straight to your inbox", "curated newsletters", "Deals, drops"])
      assert.ok(!markdown.includes(gone), `kept ${JSON.stringify(gone)}\n${markdown}`);
  });

  it("keeps content beside an e-mail form that is no newsletter box, or that wraps the whole page", () => {
    const story =
      "The workshop restores old bicycles for schools, and every frame gets new bearings, cables and brakes before it leaves. ";
    const alert = `<html><body><main><h1>Touring frame, size 56</h1>
      <p>€320, one in stock soon. A steel touring frame with rack mounts and clearance for wide tyres.</p>
      <form><label>Tell me when it is back</label><input type="email" name="email"><button>Notify me</button></form></main></body></html>`;
    const back = main(alert, {
      baseUrl: "https://bikes.example/frames/touring-56",
      pageType: "product",
    }).markdown;
    assert.ok(back.includes("rack mounts"), back);
    const wrapped = `<html><body><form id="aspnetForm"><div class="page"><h1>Our workshop</h1>
      <p>${story.repeat(4)}</p><p>Subscribe to our newsletter for news of the workshop.</p>
      <input type="text" name="newsletter_email"></div></form></body></html>`;
    const page = main(wrapped, { baseUrl: "https://bikes.example/about" }).markdown;
    assert.ok(page.includes("The workshop restores old bicycles"), page);
  });

  it("does not take a site footer's link columns for a category page's items", () => {
    const column = (title: string, links: string[]) =>
      `<div class="titled-list"><h3><a href="/${title.toLowerCase().replace(/ /g, "-")}/">${title}</a></h3><ul>${links.map((l) => `<li><a href="/${l.toLowerCase().replace(/ /g, "-")}">${l}</a></li>`).join("")}</ul></div>`;
    const letter = (l: string, names: string[]) =>
      `<div class="vert_cats ${l}"><div class="letter">${l}</div><div class="vert_cats_wrap">${names.map((n) => `<a href="/catalogs/${n.toLowerCase()}/">${n}</a>`).join(" ")}</div></div>`;
    const html = `<html><body><main><h1>Fasteners &amp; Hardware Categories</h1>
        ${letter("A", ["Adapters", "Adjusters", "Aligners", "Anchors"])}${letter("B", ["Bolts", "Brackets", "Bushings"])}
        ${letter("C", ["Casters", "Clamps", "Clips", "Couplings"])}${letter("D", ["Dowels", "Drive Screws"])}${letter("E", ["Eye Bolts", "Expansion Joints"])}
        ${letter("F", ["Fasteners", "Ferrules", "Fittings", "Flanges", "Funnels"])}${letter("G", ["Gaskets", "Grommets", "Guides"])}
        ${letter("H", ["Handles", "Hangers", "Hinges", "Hooks", "Hose Clamps"])}</main>
      <footer><div class="site-footer__body">
        ${column("Find Suppliers", ["Supplier Discovery", "Product Catalogs", "Instant Quotes", "Diversity Search"])}
        ${column("Industry Insights", ["Topics", "Guides", "White Papers", "Certification Glossary", "Industry Podcast"])}
        ${column("For Business", ["Advertise", "Marketing Services", "Company Reviews", "Claim Your Profile", "Analytics"])}
        ${column("Site Maps", ["Categories", "Featured Companies", "Featured Categories", "Featured Products"])}
        ${column("About", ["About Us", "Careers", "Contact Us", "Privacy Policy", "Terms of Use"])}
        ${column("Tools", ["Supplier Lists", "Price Quotes", "Company Profiles", "Advertising Options"])}</div></footer></body></html>`;
    const { markdown } = main(html, {
      baseUrl: "https://catalogs.example/fasteners-hardware/",
      pageType: "listing",
    });
    assert.ok(markdown.includes("Brackets"), markdown);
    assert.ok(markdown.includes("Drive Screws"), markdown);
  });

  it("keeps a documentation chapter's title and contents on its opening page, not an on-this-page list", () => {
    const nav = `<div class="navheader"><a href="prev.html">Prev</a> <a href="sql.html">Up</a> <a href="index.html">Home</a> <a href="indexes-intro.html">Next</a></div>`;
    const sections = [
      "Introduction",
      "Index Types",
      "Multicolumn Indexes",
      "Unique Indexes",
      "Partial Indexes",
    ];
    const docbook = `<html><body>${nav}<div class="chapter" id="INDEXES">
      <div class="titlepage"><div><h2 class="title">Chapter 11. Indexes</h2></div></div>
      <div class="toc"><p><strong>Table of Contents</strong></p><dl class="toc">${sections
        .map(
          (t, i) => `<dt><span class="sect1"><a href="indexes-${i}.html">11.${i + 1}. ${t}</a></span></dt>`,
        )
        .join("")}</dl></div>
      <p>Indexes are a common way to enhance database performance. An index allows the database server to find and retrieve specific rows much faster than it could do without an index.</p>
    </div>${nav}</body></html>`;
    const chapter = main(docbook, {
      baseUrl: "https://docs.example/current/indexes.html",
      pageType: "documentation",
    });
    assert.equal(chapter.mainContent, "extracted");
    for (const kept of [
      "Chapter 11. Indexes",
      "11.3. Multicolumn Indexes",
      "(https://docs.example/current/indexes-4.html)",
      "find and retrieve",
    ])
      assert.ok(chapter.markdown.includes(kept), `lost ${JSON.stringify(kept)}\n${chapter.markdown}`);
    assert.ok(!chapter.markdown.includes("[Prev]"), chapter.markdown);

    const body =
      "Replication copies every change from the primary to its standbys, so a standby can take over within seconds when the primary fails. ";
    const onThisPage = `<html><body><div class="layout"><div id="page-toc" class="toc">${sections
      .map((t) => `<a href="#${t.toLowerCase().replace(/ /g, "-")}">${t}</a>`)
      .join(
        "",
      )}</div><div id="main"><h1>Replication</h1><p>${body}</p><p>${body}</p></div></div></body></html>`;
    const page = main(onThisPage, {
      baseUrl: "https://docs.example/current/replication.html",
      pageType: "documentation",
    });
    assert.ok(page.markdown.includes("Replication copies"), page.markdown);
    assert.ok(!page.markdown.includes("Multicolumn Indexes"), page.markdown);
  });

  it("leaves out a wall of customers' logos, and keeps pictures that are not logos", () => {
    const companies = ["Microsoft", "Meta", "Salesforce", "Mastercard", "Stripe", "Uber"];
    const logo = (name: string) =>
      `<div class="logo-item"><img src="/logos/${name.toLowerCase()}.svg" alt="${name} Logo"></div>`;
    const wall = `<div class="marquee"><div class="track">${companies.map(logo).join("")}</div><div class="track" aria-hidden="false">${companies.map(logo).join("")}</div></div>`;
    const html = `<html><body><main><section class="hero"><h1>The API platform for teams</h1>
      <p>Design, test, document and monitor your APIs in one place, with your whole team working on the same collections.</p>
      <img src="/img/workspace.png" alt="A workspace with a request and its response"></section>
      <section><h2>Trusted by 500,000 companies</h2>${wall}</section>
      <section><h2>Built for scale</h2><p>Every request you send is kept with its history, so a team can see who changed what, and when, and why.</p>
      <img src="/img/partner.svg" alt="Cloud partner logo"></section></main></body></html>`;
    const { markdown } = main(html, { baseUrl: "https://api-platform.example/", pageType: "service" });
    for (const kept of [
      "Trusted by 500,000 companies",
      "A workspace with a request",
      "Cloud partner logo",
      "who changed what",
    ])
      assert.ok(markdown.includes(kept), `lost ${JSON.stringify(kept)}\n${markdown}`);
    for (const gone of ["Microsoft Logo", "Stripe Logo"])
      assert.ok(!markdown.includes(gone), `kept ${gone}\n${markdown}`);
  });

  it("keeps each reply's own words but not its quote of a post the thread already shows", () => {
    const first =
      "I want a closed headphone for the office with a wide stage, good separation and no leaking sound at all.";
    const other =
      "A colleague swears by his studio monitors from the nineties, which he found second hand at a fair.";
    const html = `<html><body><main><h1>Best closed headphones</h1>
      <article class="message"><a href="/u/anna">anna</a><div class="bbWrapper">${first}</div></article>
      <article class="message"><a href="/u/ben">ben</a><div class="bbWrapper">
        <blockquote class="bbCodeBlock bbCodeBlock--quote">anna said: ${first}</blockquote>
        For the office, take a sealed planar: it isolates well and its stage is wider than most closed backs manage.</div></article>
      <article class="message"><a href="/u/cara">cara</a><div class="bbWrapper">
        <blockquote class="bbCodeBlock bbCodeBlock--quote">${other}</blockquote>
        Quoting from another thread here, since the advice there about used gear is worth repeating for this one.</div></article>
    </main></body></html>`;
    const { markdown } = main(html, {
      baseUrl: "https://forum.example/threads/best-closed-headphones.9734/",
    });
    assert.equal(
      markdown.split("no leaking sound").length - 1,
      1,
      "the first post once, not again in the quote",
    );
    assert.ok(markdown.includes("take a sealed planar"));
    assert.ok(markdown.includes("studio monitors from the nineties"), "a quote from elsewhere stays");
  });

  it("leaves out dialogs kept in the markup, even a policy longer than the page", () => {
    const policy = "We collect the information you give us when you order, and use it to deliver. ".repeat(
      80,
    );
    const html = `<html><body>
      <main><h1>Wool Runner</h1>
        <p>A true original: soft merino wool with cushioned support for walking all day, washable in the machine.</p>
        <p>The sugarcane-based midsole is light and springy, and the laces are made from recycled bottles.</p></main>
      <div id="modal-privacy-policy" aria-modal="true" class="takeover"><h2>Privacy policy</h2><p>${policy}</p></div>
      <div role="dialog"><h2>Size guide</h2><p>Measure your foot from the heel to the longest toe, then pick the size above.</p></div>
    </body></html>`;
    const { markdown } = main(html);
    assert.ok(markdown.includes("A true original"));
    assert.ok(!markdown.includes("We collect the information"));
    assert.ok(!markdown.includes("Size guide"));
  });

  it("reads a page its scripts keep hidden until they run, when nearly all of it is hidden", () => {
    const html = `<html><body>
      <div class="loader">Loading</div>
      <div class="product-wrapper" style="display: none"><article>
        <h1>Toasted Almond Thins</h1>
        <p>Our family created these crunchy almond crisps for special occasions, a lighter version of grandma's recipe.</p>
        <p>Baked in small batches from scratch, with no added salt and no preservatives, and they keep for weeks.</p>
        <div style="display:none">Quick view of another product that stays hidden</div>
      </article></div>
      <div style="display: none">Your cart is empty</div>
    </body></html>`;
    for (const onlyMainContent of [true, false]) {
      const { markdown } = htmlToMarkdown(html, { baseUrl, onlyMainContent });
      assert.ok(markdown.includes("Our family created these crunchy almond crisps"), markdown);
      assert.ok(!markdown.includes("Quick view"));
      assert.ok(!markdown.includes("Your cart is empty"));
    }
  });

  it("falls back to the whole page cleaned of the site's chrome when nothing credible is there, and says so", () => {
    const html = `<html><body>
      <nav><a href="/a">Home</a> <a href="/b">Products</a> <a href="/c">Contact</a></nav>
      <div class="grid"><a href="/p/1">Lamp</a> <a href="/p/2">Chair</a> <a href="/p/3">Table</a></div>
      <p>Free delivery.</p>
      <footer>© Shop</footer>
    </body></html>`;
    const result = main(html);
    assert.equal(result.mainContent, "fallback_whole_page");
    assert.equal(
      result.markdown,
      "[Lamp](https://example.com/p/1) [Chair](https://example.com/p/2) [Table](https://example.com/p/3)\n\nFree delivery.\n",
      "the page's own links and text, without its menu and footer",
    );
  });

  it("never takes the footer's copyright line for the content of a page of links and pictures", () => {
    const categories = [
      "Watercolor Paint",
      "Acrylic Paint",
      "Oil Paint",
      "Brushes",
      "Colored Pencils",
      "Markers",
    ];
    const html = `<html><body>
      <header><a href="/">Art Supplies</a> <a href="/cart">Cart</a></header>
      <main>
        <a href="/gifts"><img src="/g.jpg" alt="Gifts for artists"></a>
        <h2>Browse Featured Categories</h2>
        <ul>${categories.map((c, i) => `<li><a href="/c/${i}">${c}</a></li>`).join("")}</ul>
      </main>
      <footer><p>Art Supplies®, Studio® and Pick® are registered trademarks of Art Supplies, LLC. © Copyright 1999-2026
        Art Supplies, LLC. All rights reserved.</p></footer>
    </body></html>`;
    const { markdown } = main(html);
    assert.ok(markdown.includes("Browse Featured Categories"), markdown);
    assert.ok(markdown.includes("[Acrylic Paint](https://example.com/c/1)"), markdown);
  });

  it("prints a paragraph the page says exactly twice once, and keeps each item's own repeated line and code", () => {
    const front =
      "Capture crystal-clear close-ups of birds with our next-generation camera and its wide lens.";
    const terms = "Not valid with other offers or coupons, some restrictions may apply to this offer.";
    const code = "const client = new Client({ apiKey: process.env.API_KEY, region: 'eu-west-1' });";
    const card = (i: number) =>
      `<li class="offer"><h3><a href="/o/${i}">Offer ${i}</a></h3><p>${terms}</p></li>`;
    const html = `<html><body><main><article>
      <h1>Smart Bird Feeder Pro</h1>
      <p>Our award-winning feeder, reimagined for the garden, with solar power and a bigger seed tray.</p>
      <section class="feature"><div class="front"><h2>Stunning photos</h2><p>${front}</p></div>
        <div class="back"><p>${front}</p></div></section>
      <ul class="offers">${[1, 2, 3].map(card).join("")}</ul>
      <pre><code>${code}

${code}</code></pre>
      <p>Every photo helps researchers track bird populations and migration, right from your own backyard.</p>
    </article></main></body></html>`;
    const { markdown } = main(html);
    const times = (text: string) => markdown.split(text).length - 1;
    assert.equal(times(front), 1, markdown);
    assert.equal(times(terms), 3, markdown);
    assert.equal(times(code), 2, markdown);
    // The whole page is what the page holds, copies and all.
    assert.equal(htmlToMarkdown(html, { baseUrl }).markdown.split(front).length - 1, 2);
  });

  it("falls back on an empty page", () => {
    assert.deepEqual(main(""), { markdown: "", mainContent: "fallback_whole_page" });
  });

  it("is absent from the result without onlyMainContent", () => {
    assert.equal("mainContent" in htmlToMarkdown(news, { baseUrl }), false);
  });
});

describe("whole page", () => {
  const { markdown } = htmlToMarkdown(news, { baseUrl });

  it("keeps the text around the article, related links and comments, but not link-only menus", () => {
    for (const text of ["Related stories", "Went there on Sunday"]) {
      assert.ok(markdown.includes(text), `missing ${JSON.stringify(text)}`);
    }
    for (const text of ["[News](https://example.com/news)", "About us"]) {
      assert.ok(!markdown.includes(text), `kept ${JSON.stringify(text)}`);
    }
  });

  it("keeps navigation the caller picks with includeTags", () => {
    const picked = htmlToMarkdown(news, { baseUrl, includeTags: ["nav.main-nav"] }).markdown;
    assert.ok(picked.includes("[News](https://example.com/news)"));
  });

  it("drops what is never content: consent banner, skip link, share buttons, ad slots", () => {
    for (const text of [
      "We use cookies",
      "Accept all",
      "Skip to content",
      "Share on Facebook",
      "Advertisement",
    ]) {
      assert.ok(!markdown.includes(text), `kept ${JSON.stringify(text)}`);
    }
  });

  it("drops a consent platform's preference center under its own name, however long its explanations", () => {
    const kinds = ["Strictly Necessary", "Performance", "Functional", "Targeting", "Social Media"];
    const sentence =
      "cookies are set by us and by our partners to remember what you chose and to measure how the site is used; they are described here in full, with every partner that sets them, how long each one is kept and what it is used for.";
    const explain = (kind: string) =>
      `<li><h3>${kind} Cookies</h3><p>${`${kind} ${sentence} `.repeat(6)}</p></li>`;
    const dishes = [
      "Lasagna",
      "Banana bread",
      "Chicken curry",
      "Pancakes",
      "Fish tacos",
      "Risotto",
      "Chili",
      "Pad thai",
    ];
    const recipes = [...dishes, ...dishes.map((d) => `Vegan ${d.toLowerCase()}`)]
      .map(
        (r) =>
          `<li><a href="/recipe/${r.toLowerCase().replace(/ /g, "-")}">${r}</a><p>A weeknight ${r.toLowerCase()} with what is in your cupboard, ready in forty minutes and loved by the whole family.</p></li>`,
      )
      .join("");
    const html = `<html><body><main><h1>Dinner recipes</h1>
        <p>Quick dinners for every night of the week, tested in our kitchen and rated by home cooks.</p><ul>${recipes}</ul></main>
      <div id="onetrust-consent-sdk"><div id="onetrust-pc-sdk" class="otPcTab"><h2>Privacy Preference Center</h2>
        <ul>${kinds.map(explain).join("")}</ul><button>Confirm my choices</button></div></div>
    </body></html>`;
    for (const onlyMainContent of [false, true]) {
      const { markdown } = htmlToMarkdown(html, {
        baseUrl: "https://recipes.example/dinner",
        onlyMainContent,
      });
      assert.match(markdown, /Banana bread/);
      for (const gone of ["Privacy Preference Center", "Targeting Cookies", "Confirm my choices"])
        assert.ok(!markdown.includes(gone), `kept ${gone} (onlyMainContent: ${onlyMainContent})`);
    }
  });

  it("does not believe a never-content name on an element holding real text", () => {
    const text =
      "This paragraph is long enough to be content, which is why the wrapper's unlucky class name is ignored here.";
    const html = `<div class="modal-layout"><p>${text}</p><p>${text}</p></div>`;
    assert.ok(htmlToMarkdown(html, { baseUrl }).markdown.includes(text));
  });
});

describe("includeTags and excludeTags", () => {
  it("includeTags keeps only the matching elements, in page order", () => {
    const { markdown } = htmlToMarkdown(news, { baseUrl, includeTags: [".entry-content h2", "h1"] });
    assert.equal(markdown, "# City opens new river park\n\n## What is there\n");
  });

  it("excludeTags removes matching elements before conversion", () => {
    const { markdown } = htmlToMarkdown(news, {
      baseUrl,
      includeTags: [".entry-content"],
      excludeTags: ["ul", "blockquote", ".ad-slot"],
    });
    assert.ok(markdown.startsWith("The city opened"));
    assert.ok(!markdown.includes("playgrounds"));
    assert.ok(!markdown.includes("We finally have"));
    assert.ok(markdown.includes("Construction cost"));
  });

  it("works together with onlyMainContent", () => {
    const { markdown, mainContent } = main(news, { excludeTags: ["blockquote"] });
    assert.equal(mainContent, "extracted");
    assert.ok(markdown.includes("Construction cost"));
    assert.ok(!markdown.includes("We finally have"));
  });

  it("includeTags matching nothing gives empty markdown", () => {
    assert.equal(htmlToMarkdown(news, { baseUrl, includeTags: [".nothing-here"] }).markdown, "");
  });

  it("rejects an invalid selector with a coded error", () => {
    assert.throws(
      () => htmlToMarkdown(news, { baseUrl, excludeTags: ["div[["] }),
      (err: unknown) =>
        err instanceof MarkdownOptionError &&
        err.code === "invalid_selector" &&
        /excludeTags/.test(err.message),
    );
  });
});

describe("onlyMainContent on a documentation page's reading lists", () => {
  const prose = (s: string) =>
    `<p>${s} BigQuery stores data in a columnar format optimised for analytical queries, replicates it across locations for availability, and separates storage from compute so that each can scale on its own without downtime.</p>`;
  const html = `<html><head><title>BigQuery overview</title></head><body>
<header><nav><ul><li><a href="/">Home</a></li><li><a href="/docs">Docs</a></li><li><a href="/pricing">Pricing</a></li></ul></nav></header>
<div class="layout"><aside><ul><li><a href="/a">Overview</a></li><li><a href="/b">Storage</a></li><li><a href="/c">Analytics</a></li><li><a href="/d">Administration</a></li></ul></aside>
<main><h1>BigQuery overview</h1>
${prose("BigQuery is a managed data platform.")}
<h2>Storage</h2>
${prose("Storage is the first of its two layers.")}
<ul>
<li><a href="/docs/resource-hierarchy">Learn about common patterns to organize resources</a> in the data warehouse and data marts.</li>
<li><a href="/docs/dts-introduction">BigQuery Data Transfer Service</a> automates data ingestion.</li>
<li><a href="/docs/storage-write">Stream data with the Storage Write API</a> for low-latency ingestion.</li>
</ul>
<h2>Analytics</h2>
${prose("Analytics is the second layer.")}
<ul class="share"><li><a href="https://x.com/share">Share on X</a></li><li><a href="https://facebook.com/share">Share on Facebook</a></li><li><a href="mailto:?">Email this page</a></li></ul>
${prose("Queries run on the compute layer.")}
</main></div><footer><a href="/terms">Terms</a></footer></body></html>`;
  const { markdown } = htmlToMarkdown(html, {
    baseUrl: "https://cloud.example/docs/intro",
    onlyMainContent: true,
  });

  it("keeps a list whose items say what their link holds, mostly link text though it is", () => {
    assert.ok(
      markdown.includes(
        "- [BigQuery Data Transfer Service](https://cloud.example/docs/dts-introduction) automates data ingestion.",
      ),
      markdown,
    );
    assert.ok(markdown.includes("in the data warehouse and data marts."));
    assert.ok(markdown.includes("for low-latency ingestion."));
  });

  it("still drops a list of bare links inside the content, and the site's menus", () => {
    for (const text of ["Share on X", "Email this page", "Pricing", "Administration", "Terms"])
      assert.ok(!markdown.includes(text), `kept ${JSON.stringify(text)}`);
  });
});

describe("onlyMainContent on an article laid out with CKEditor's widgets", () => {
  const plant = (name: string) =>
    `<div class="col-lg"><img src="/img/${name}.jpg" alt="${name}"><h6><strong>${name}</strong></h6><p>${name} grows slowly in low light and needs little care: water it only when the soil has dried out, keep it away from cold drafts, and repot it every few years in spring when its roots fill the pot.</p></div>`;
  const html = `<html><head><title>Indoor plants for low light</title></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/plants">Plant information</a></li></ul></nav>
<main><article><h1>Indoor plants for low light</h1>
<p>As the year begins our indoor spaces can seem dark, especially on overcast days, but several old-fashioned favorites thrive there and brighten the bleak winter months.</p>
<div class="ck-widget ck-widget bs_grid" contenteditable="false"><div class="ck-widget row" contenteditable="false">${plant("Snake plant")}${plant("ZZ plant")}</div></div>
<div class="ck-widget ck-widget bs_grid" contenteditable="false"><div class="ck-widget row" contenteditable="false">${plant("Spider plant")}${plant("Cast-iron plant")}</div></div>
</article>
<aside class="sidebar"><div class="widget widget_recent_entries"><h3>Recent posts</h3><ul><li><a href="/a">Pruning roses in March</a></li><li><a href="/b">Seed swaps near you</a></li></ul></div></aside>
</main></body></html>`;
  const { markdown } = htmlToMarkdown(html, {
    baseUrl: "https://garden.example/plants/dark",
    onlyMainContent: true,
  });

  it("keeps every paragraph of the editor's grids", () => {
    for (const name of ["Snake plant", "ZZ plant", "Spider plant", "Cast-iron plant"])
      assert.ok(markdown.includes(`${name} grows slowly in low light`), `missing ${name}: ${markdown}`);
  });

  it("still drops a sidebar's widget", () => {
    assert.ok(!markdown.includes("Recent posts"));
    assert.ok(!markdown.includes("Pruning roses"));
  });
});

describe("onlyMainContent on a page styled with a design system's utility classes", () => {
  const cell = (text: string) =>
    `<td class="border-b py-tight font-utility-2 whitespace-normal first:w-[144px]"><span>${text}</span></td>`;
  const html = `<html><head><title>Couch to marathon</title></head><body>
<nav class="font-utility-1"><a href="/">Home</a> <a href="/training">Training</a></nav>
<main><article><h1>Go from couch to marathon</h1>
<p>The plan eases you into training with a week of three walk/runs, an optional cross-training session and three rest days, then ramps up week by week until you run a marathon. The table below shows a basic week.</p>
<div class="isolate overflow-x-scroll"><table class="w-full text-left"><thead><tr>${cell("Monday")}${cell("Tuesday")}${cell("Wednesday")}</tr></thead>
<tbody><tr>${cell("Rest")}${cell("High-intensity run")}${cell("Optional cross-training or rest")}</tr></tbody></table></div>
<p>Each week adds a little distance to the long run, so that by week 24 your legs are ready for race day and the 26.2 miles that come with it.</p>
</article></main><footer class="font-utility-3"><a href="/terms">Terms of use</a></footer></body></html>`;
  const { markdown } = htmlToMarkdown(html, {
    baseUrl: "https://run.example/plans/marathon",
    onlyMainContent: true,
  });

  it("keeps a table whose cells carry a typeface token named 'utility'", () => {
    assert.ok(markdown.includes("| Rest | High-intensity run | Optional cross-training or rest |"), markdown);
  });

  it("still drops the site's navigation and footer", () => {
    assert.ok(!markdown.includes("Training]"));
    assert.ok(!markdown.includes("Terms of use"));
  });
});

describe("onlyMainContent on a report whose text introduces lists of links", () => {
  const prose =
    "<p>This month the backend compiled more of the standard library, passed more of the test suite, and got closer to being shipped with the compiler itself, thanks to many contributors.</p>";
  const links = (n: number, what: string) =>
    `<ul>${Array.from({ length: n }, (_, i) => `<li><a href="/patches/${what}-${i}">${what}: support attribute number ${i + 1}</a></li>`).join("")}</ul>`;
  const html = `<html><head><title>Progress report 39</title></head><body>
<nav><ul><li><a href="/">Blog</a></li><li><a href="/about">About</a></li></ul></nav>
<main><article class="post"><h1>Progress report 39</h1>${prose}${prose}
<div class="sect1"><h2>GCC patches status</h2><div class="sectionbody">
<div class="paragraph"><p>Many patches were sent for review:</p></div>
<div class="ulist">${links(3, "libgccjit")}</div></div></div>
${prose}
<p><strong>YOU MIGHT ALSO LIKE:</strong></p>${links(4, "older-post")}
<h4>More on compilers:</h4>${links(4, "compiler-post")}
</article></main></body></html>`;
  const { markdown } = htmlToMarkdown(html, {
    baseUrl: "https://blog.example/report-39",
    onlyMainContent: true,
  });

  it("keeps a list of links that a sentence of the text announces, with its section", () => {
    assert.ok(markdown.includes("## GCC patches status"), markdown);
    assert.ok(markdown.includes("Many patches were sent for review:"));
    assert.ok(markdown.includes("libgccjit: support attribute number 3"));
  });

  it("still drops link lists that a bold label or a heading heads", () => {
    assert.ok(!markdown.includes("older-post"), markdown);
    assert.ok(!markdown.includes("compiler-post"));
  });
});

describe("onlyMainContent on a landing page that sets its prose in heading tags", () => {
  const band = (title: string, prose: string, tag = "p") =>
    `<div class="content-section"><div class="row"><div class="col-sm-6"><h2>${title}</h2><${tag}>${prose}</${tag}><a class="button" href="/about">Read More</a></div><div class="col-sm-6"><div class="right-img"></div></div></div></div>`;
  const html = `<html><head><title>The Gallery</title></head><body>
<header><nav><ul><li><a href="/">Home</a></li><li><a href="/store">Store</a></li><li><a href="/about">About</a></li></ul></nav></header>
<div class="page-content">
${band("Welcome to our unique gallery!", "For more than 40 years, we have offered a vast selection of handmade American gifts, where you will surely find something for everyone on your list. Jewelry, pottery, exotic wood and handblown glass are just a few.", "h4")}
${band("An incredible selection of art and craft", "Your go-to shop for gifts, and your favorite place to see the latest collections of work from our talented artisans, who visit the gallery through the year.")}
${band("Visit us", "The gallery is open every day from ten to six, with free parking behind the building and a cafe next door for those who shop together.")}
</div><footer><p>© 2025 The Gallery</p></footer></body></html>`;
  const { markdown } = htmlToMarkdown(html, { baseUrl: "https://gallery.example/", onlyMainContent: true });

  it("keeps a paragraph of prose set in an <h4>", () => {
    assert.ok(markdown.includes("For more than 40 years, we have offered"), markdown);
    assert.ok(markdown.includes("Your go-to shop for gifts"));
  });
});

describe("onlyMainContent on a listing whose cards are articles with a header", () => {
  const titles = [
    "What is planned obsolescence? Six ways to combat it",
    "The ultimate guide to sustainable certifications",
    "Ten impactful plastic-free swaps for your kitchen",
    "Going green: a beginner's guide to an eco-friendly life",
    "Four things you should know how to fix at home",
  ];
  const card = (t: string, i: number) =>
    `<article class="Excerpt post-${i}"><div class="Excerpt-Thumb"><a href="/blog/post-${i}/"><img src="/img/${i}.jpg" alt=""></a></div><header class="Excerpt-Header"><h2 class="Excerpt-Title"><a href="/blog/post-${i}/">${t}</a></h2></header></article>`;
  const html = `<html><head><title>Blog posts for beginners</title></head><body>
<header class="site-header"><a href="/"><img src="/logo.png" alt="Going Zero Waste"></a><nav><a href="/blog">Blog</a> <a href="/shop">Shop</a> <a href="/about">About</a></nav></header>
<main><h1>Blog posts for beginners</h1>
<p>New to zero waste? These posts are the best place to start: they explain what to change first, what to buy and what to skip, and how to keep going once the first excitement wears off.</p>
<div class="CLR">${titles.map(card).join("")}</div></main>
<footer><p>© 2025 Going Zero Waste</p></footer></body></html>`;
  const { markdown } = htmlToMarkdown(html, {
    baseUrl: "https://zerowaste.example/beginners/",
    onlyMainContent: true,
  });

  it("keeps every card's title, which its <header> holds", () => {
    for (const t of titles) assert.ok(markdown.includes(t), `missing ${JSON.stringify(t)}: ${markdown}`);
  });

  it("still drops the site's header", () => {
    assert.ok(!markdown.includes("[Shop]"), markdown);
  });
});
