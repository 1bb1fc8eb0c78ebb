import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { htmlToMarkdown } from "../src/index.ts";

const baseUrl = "https://example.com/dir/page.html";
const md = (html: string) => htmlToMarkdown(html, { baseUrl }).markdown;

describe("never-content", () => {
  it("drops script bodies wherever the script sits", () => {
    const out = md(`<!doctype html><html><head><script>var secret = 1</script></head>
      <body><p>Text<script>var secret = 1; fetch("/x")</script></p>
      <div><script type="application/ld+json">{"secret": "json-ld"}</script></div>
      <script>var secret = 1</script></body></html>`);
    assert.equal(out, "Text\n");
    assert.ok(!out.includes("var secret = 1"));
    assert.ok(!out.includes("json-ld"));
  });

  it("keeps nothing from the noise fixture's hidden or non-content parts", () => {
    const html = readFileSync(join(import.meta.dirname, "golden", "noise.html"), "utf8");
    const out = htmlToMarkdown(html, { baseUrl }).markdown;
    for (const text of [
      "secret",
      "pwned",
      "color: red",
      "meta description",
      "noscript text",
      "template text",
      "svg title",
      "svg desc",
      "svg text",
      "M0 0",
      "iframe fallback",
      "object fallback",
      "canvas fallback",
      "hidden attribute text",
      "aria hidden text",
      "display none text",
      "visibility hidden text",
      "closed dialog text",
      "hidden-token-value",
      "pixel",
      "javascript",
      "data:image",
      "/empty",
      "/settings",
    ]) {
      assert.ok(!out.includes(text), `output contains ${JSON.stringify(text)}`);
    }
  });

  it("keeps tab panels not shown yet (the code sample in the other language)", () => {
    const out =
      md(`<div role="tablist"><button role="tab">Python</button><button role="tab">Node.js</button></div>
      <div role="tabpanel"><pre><code>pip install twilio</code></pre></div>
      <div role="tabpanel" hidden style="display:none"><pre><code>npm install twilio</code></pre></div>
      <div hidden>A closed menu</div>`);
    assert.match(out, /pip install twilio/);
    assert.match(out, /npm install twilio/);
    assert.doesNotMatch(out, /closed menu/);
  });

  it("keeps hidden=until-found content, which is searchable text", () => {
    assert.equal(md(`<div hidden="until-found">Accordion body</div>`), "Accordion body\n");
  });
});

describe("links and images", () => {
  it("unwraps javascript: links however they are spelled", () => {
    assert.equal(
      md(
        `<p><a href="javascript:go()">a</a> <a href=" JavaScript:go()">b</a> <a href="java&#x0A;script:go()">c</a></p>`,
      ),
      "a b c\n",
    );
  });

  it("resolves against <base href>, itself relative to the page", () => {
    assert.equal(
      md(`<html><head><base href="../assets/"></head><body><a href="x.html">x</a></body></html>`),
      "[x](https://example.com/assets/x.html)\n",
    );
  });

  it("ignores srcset and drops images without a usable src", () => {
    assert.equal(
      md(
        `<p><img src="a.png" srcset="a-2x.png 2x" alt="A"><img srcset="b.png 1x" alt="B"><img src="blob:https://example.com/1" alt="C"></p>`,
      ),
      "![A](https://example.com/dir/a.png)\n",
    );
  });

  it("flattens block content inside a link onto one line", () => {
    assert.equal(
      md(`<a href="/post"><div><h3>Title</h3><p>Teaser</p></div></a>`),
      "[Title Teaser](https://example.com/post)\n",
    );
  });

  it("gives each card-style link a paragraph of its own, so cards side by side do not run together", () => {
    assert.equal(
      md(`<div class="grid"><a href="/a"><h3>Alpha</h3><p>The first card</p></a><a href="/b"><h3>Beta</h3>
        <p>The second card</p></a></div><p>Read <a href="/c">more <b>here</b></a> today.</p>`),
      "[Alpha The first card](https://example.com/a)\n\n[Beta The second card](https://example.com/b)\n\nRead [more **here**](https://example.com/c) today.\n",
    );
  });

  it("writes a bracketed link label's brackets outside the link, so the first ']' ends the label", () => {
    assert.equal(
      md(
        `<p>Chaining and routing <a href="/refs#1">[1]</a>, <a href="https://src.example/a.py#L61">[source]</a>` +
          ` <a href="/x">[a] and [b]</a></p>`,
      ),
      "Chaining and routing \\[[1](https://example.com/refs#1)\\], \\[[source](https://src.example/a.py#L61)\\]" +
        " [\\[a\\] and \\[b\\]](https://example.com/x)\n",
    );
  });

  it("leaves relative links as text when the base URL is unusable", () => {
    assert.equal(
      htmlToMarkdown(`<a href="/rel">rel</a> <a href="https://abs.example/x">abs</a>`, {
        baseUrl: "not a url",
      }).markdown,
      "rel [abs](https://abs.example/x)\n",
    );
  });
});

describe("code", () => {
  it("fences with more backticks than any run inside, wherever it is", () => {
    assert.equal(md("<pre><code>a ```` b</code></pre>"), "`````\na ```` b\n`````\n");
  });

  it("keeps blank lines inside code while collapsing them elsewhere", () => {
    assert.equal(md("<p>a</p><br><br><br><p>b</p><pre>x\n\n\n\ny</pre>"), "a\n\nb\n\n```\nx\n\n\n\ny\n```\n");
  });

  it("tracks fences that open a list item or sit in a blockquote", () => {
    assert.equal(
      md("<ul><li><pre><code class='language-js'>a\n\n\nb</code></pre></li></ul><p>x</p><br><br><p>y</p>"),
      "- ```js\n  a\n\n\n  b\n  ```\n\nx\n\ny\n",
    );
    assert.equal(
      md("<blockquote><pre>q1\n\n\nq2</pre></blockquote><p>x</p>"),
      "> ```\n> q1\n>\n>\n> q2\n> ```\n\nx\n",
    );
  });

  it("takes the language from lang-* on <pre> and keeps the code verbatim", () => {
    assert.equal(
      md(`<pre class="lang-go"><code>if a &lt; b {\n\treturn\n}</code></pre>`),
      "```go\nif a < b {\n\treturn\n}\n```\n",
    );
  });
});

describe("output normalization", () => {
  it("turns non-breaking spaces into spaces and trims trailing whitespace", () => {
    assert.equal(md("<p>a&nbsp;&nbsp;b&nbsp;</p><p>c\u00a0d</p>"), "a b\n\nc d\n");
  });

  it("never has two blank lines in a row and ends with a single newline", () => {
    const out = md(`<div><p>a</p></div><div></div><div><br></div><section><p>b</p></section>
      <ul><li><p>c</p></li></ul>`);
    assert.ok(!/\n\n\n/.test(out));
    assert.ok(!/[ \t]$/m.test(out));
    assert.ok(out.endsWith("\n") && !out.endsWith("\n\n"));
  });

  // turndown as patched (patches/turndown+*.patch) decides blankness without building each node's text.
  it("drops blank elements, even when their blank text is spread over nested nodes and comments", () => {
    const out = md(`<p>a</p><p> <span>\n</span><!-- note --><b>&nbsp;</b> </p><p><em> </em><i>b</i></p>`);
    assert.equal(out, "a\n\n_b_\n");
  });

  it("keeps a blank-text element that holds an image or a table cell", () => {
    assert.equal(
      md(`<p> <span> <img src="/i.png" alt="pic"> </span> </p>`),
      "![pic](https://example.com/i.png)\n",
    );
    assert.equal(
      md(`<table><tr><th>h</th><th> </th></tr><tr><td> </td><td>x</td></tr></table>`),
      "| h   |     |\n| --- | --- |\n|     | x   |\n",
    );
  });

  it("does not escape mid-sentence text the parser split at an entity", () => {
    assert.equal(md("<p>&lt;tag&gt; a &amp;- b</p>"), "<tag> a &- b\n");
  });

  it("returns empty markdown for empty or content-free input", () => {
    assert.deepEqual(htmlToMarkdown("", { baseUrl }), { markdown: "" });
    assert.deepEqual(htmlToMarkdown("<html><body><script>x()</script></body></html>", { baseUrl }), {
      markdown: "",
    });
  });

  it("accepts fragments without <html>/<body>", () => {
    assert.equal(md("Hello <b>world</b><p>para</p>"), "Hello **world**\n\npara\n");
  });
});

describe("pages as a browser builds them from the served bytes", () => {
  it("keeps what follows an early </body></html> (a template that closes the page before its article)", () => {
    const out = md(`<html><body><header>Menu</header></body></html>
      <main><p>The article goes on after the early end tags.</p></main></body></html>`);
    assert.match(out, /The article goes on after the early end tags\./);
  });

  it("reads past a <![CDATA[ in HTML content, as a browser does", () => {
    const out = md(
      `<html><body><![CDATA[ <div><p>Forum thread text after the marker.</p></div></body></html>`,
    );
    assert.match(out, /Forum thread text after the marker\./);
  });

  it("puts streamed React segments where their placeholders stand, without the loading fallback", () => {
    const out = md(`<html><body><h1>Title</h1><!--$?--><template id="B:0"></template><p>Loading…</p><!--/$-->
      <p>Footer line</p><div hidden id="S:0"><p>The streamed body text.</p></div>
      <script>$RC("B:0","S:0")</script></body></html>`);
    assert.doesNotMatch(out, /Loading/);
    assert.match(out, /# Title\n\nThe streamed body text\.\n\nFooter line/);
  });

  it("puts each streamed segment where the page's own calls send it, boundary or placeholder", () => {
    const out = md(`<html><body><h1>Chair</h1><!--$?--><template id="B:1"></template><p>Loading…</p><!--/$-->
      <template id="P:2e"></template><p>Footer line</p>
      <div hidden id="S:7"><p>The chair's description.</p></div><script>$RC("B:1","S:7")</script>
      <div hidden id="S:2e"><h2>Specifications</h2><p>Weight: 58 lb.</p></div><script>$RS("S:2e","P:2e")</script></body></html>`);
    assert.doesNotMatch(out, /Loading/);
    assert.match(
      out,
      /# Chair\n\nThe chair's description\.\n\n## Specifications\n\nWeight: 58 lb\.\n\nFooter line/,
    );
  });

  it("keeps a hidden wrapper that holds most of the page (hidden until scripts or fonts load)", () => {
    const out = md(`<html><body><div style="visibility:hidden"><h1>Guide</h1>
      <p>Machine learning is a branch of artificial intelligence that learns from data.</p></div>
      <div hidden>A closed menu</div><span aria-hidden="true">icon</span></body></html>`);
    assert.match(out, /Machine learning is a branch/);
    assert.doesNotMatch(out, /closed menu|icon/);
  });

  it("keeps the rest of a text behind its 'Read more' (an expander's hidden content)", () => {
    const out = md(`<html><body><h1>Atomic Habits</h1><p>Tiny changes, remarkable results.</p>
      <div data-expanded="false" class="a-expander-content" style="display:none"><h3>Excerpt</h3><p>It is so easy to overestimate one defining moment.</p></div>
      <div class="bio"><p>The author writes about habits.</p><div class="read-more-content" style="display:none"><p>His newsletter reaches three million readers.</p></div><button>Read more</button></div>
      <div class="promo" style="display:none">Sign up for deals</div></body></html>`);
    assert.match(out, /It is so easy to overestimate one defining moment/);
    assert.match(out, /His newsletter reaches three million readers/);
    assert.doesNotMatch(out, /Sign up for deals/);
  });

  it("keeps collapsed answers and a carousel's other slides (content one click away), not other hidden parts", () => {
    const out = md(`<html><body><h1>Shipping</h1>
      <button aria-expanded="false" aria-controls="faq-1">How fast do orders ship?</button>
      <div id="faq-1" role="region" aria-hidden="true"><p>Most orders ship within two days of ordering.</p></div>
      <button aria-expanded="false" aria-controls="faq-2">Can I return an item?</button>
      <div id="faq-2" hidden><p>Unused items come back within fourteen days for a refund.</p></div>
      <div class="faq"><h3>Do you ship abroad?</h3><div class="faq__answer" style="display: none">We ship to forty countries.</div></div>
      <ul class="bp-Carousel"><li class="bp-Carousel__cell">1 Elm Street, 3 beds, $450,000</li>
        <li class="bp-Carousel__cell" aria-hidden="true">9 Oak Road, 2 beds, $380,000</li></ul>
      <div id="cart-drawer" style="display:none">Your cart is empty</div></body></html>`);
    assert.match(out, /Most orders ship within two days/);
    assert.match(out, /Unused items come back within fourteen days/);
    assert.match(out, /We ship to forty countries/);
    assert.match(out, /9 Oak Road, 2 beds/, "a carousel's next slide is one swipe away");
    assert.doesNotMatch(out, /Your cart is empty/);
  });

  it("keeps an accordion's panel labelled by the button that controls it, without aria-expanded (WAI-ARIA's pattern)", () => {
    const out =
      md(`<html><body><header><button id="open-signup" aria-controls="signup">Newsletter</button></header>
      <h1>Going solar</h1><p>Five steps from your first quote to a working system.</p>
      <div class="es-accordion"><a id="step_1_header" role="button" tabindex="0" aria-controls="step_1_content"><span role="heading" aria-level="3">1. Understand your electric bill</span></a>
      <div id="step_1_content" style="display:none;" role="region" aria-labelledby="step_1_header"><p>Look for your annual kilowatt hours on your bill or your utility's website.</p></div>
      <a id="step_2_header" role="button" tabindex="0" aria-controls="step_2_content"><span role="heading" aria-level="3">2. Get quotes</span></a>
      <div id="step_2_content" style="display:none;" role="region" aria-labelledby="step_2_header"><p>Compare three or more quotes from installers near you.</p></div></div>
      <p>Most homes need ten to twenty panels; the quotes say how many.</p>
      <div id="signup" style="display:none" role="dialog" aria-labelledby="signup-title"><h2 id="signup-title">Get our deals</h2><p>Join fifty thousand readers for weekly offers.</p></div>
      </body></html>`);
    assert.match(out, /Look for your annual kilowatt hours/);
    assert.match(out, /Compare three or more quotes/);
    assert.doesNotMatch(
      out,
      /Join fifty thousand readers/,
      "a hidden dialog its opener controls is not labelled by it",
    );
  });

  it("keeps an accordion's hidden answer that only its place names (after a clickable question), not a hidden menu or drawer", () => {
    const item = (q: string, a: string) =>
      `<div class="sc-bf915e75-0"><div cursor="pointer" class="sc-64912480-0"><div class="sc-3540b16d-0">${q}</div></div>` +
      `<div height="0" style="visibility:hidden" class="sc-64912480-0"><div class="react-markdown"><p>${a}</p></div></div></div>`;
    const out = md(`<html><body><h1>Pet insurance</h1><p>Compare plans from trusted providers.</p>
      ${item("What does pet insurance cover?", "Coverage ranges from accident only to accident and illness plans with wellness add-ons.")}
      ${item("Does pet insurance cover elderly pets?", "Some providers set a maximum age between six and twelve years, so insure young.")}
      <ul class="menu"><li><button>Shop</button><div style="display:none"><a href="/dogs">Dog food and treats</a> <a href="/cats">Cat food and litter</a></div></li></ul>
      <div class="mini-cart"><button>Cart</button><div style="display:none">Your cart is empty. Add something you like.<form><input name="q"></form></div></div>
      </body></html>`);
    assert.match(out, /Coverage ranges from accident only/);
    assert.match(out, /maximum age between six and twelve years/);
    assert.doesNotMatch(out, /Dog food and treats/, "a drop-down of links under a menu button");
    assert.doesNotMatch(out, /Your cart is empty/, "a drawer holding a form");
  });

  it("does not take a script's hidden template or a tooltip after a titled block for an accordion's answer", () => {
    const out =
      md(`<html><body><h1>Catering tips</h1><p>Add a line for a discretionary gratuity to every proposal.</p>
      <div class="templates"><div id="pleaseWait" class="reveal-modal tiny" data-reveal><h4>Please wait...</h4></div><textarea id="alertTemplate" class="hide">&lt;div id="{%=id%}" class="reveal-modal small"&gt;&lt;h4&gt;Alert: something went wrong.&lt;/h4&gt;&lt;/div&gt;</textarea></div>
      <div class="js-tooltip"><div class="js-tooltip-trigger"><a class="rate-now">Rate now</a></div>
        <div class="js-tooltip__content hidden"><h4>You have to be logged in to rate products.</h4><p>Only buyers may rate, to keep ratings honest.</p></div></div>
      </body></html>`);
    assert.match(out, /discretionary gratuity/);
    assert.doesNotMatch(out, /reveal-modal|something went wrong/, "a template for scripts");
    assert.doesNotMatch(out, /logged in to rate/, "a tooltip");
  });

  it("leaves out what a utility class hides at every size, not what it shows from some size up or another tab's list", () => {
    const out = md(`<html><body><h1>Staple Tee</h1><p>Regular fit, 5.3 oz combed cotton.</p>
      <dl class="productView-info hide"><dt>cat_thumb_Bone:</dt><dd>thumb_bone_1.jpg</dd></dl>
      <div class="d-none">Mobile menu: Shop, Outlet, Stores</div>
      <div class="hidden md:block">Free shipping over $50</div>
      <div class="d-none d-lg-flex">Size guide: S, M, L</div>
      <div class="tabs"><ul class="templates-list">Work: Weekly review</ul>
        <ul class="templates-list hidden">Personal: Habit tracker</ul></div>
      <ul class="swatches"><li class="swatch">Amberlight</li><li class="swatch">Bluestone</li><li class="swatch hidden">Meadowlark</li></ul>
      </body></html>`);
    assert.match(out, /Regular fit/);
    assert.doesNotMatch(out, /cat\\?_thumb|thumb\\?_bone/, "a dl hidden by the theme's .hide");
    assert.doesNotMatch(out, /Mobile menu/);
    assert.match(out, /Free shipping over \$50/, "hidden on phones only");
    assert.match(out, /Size guide/, "hidden on phones only");
    assert.match(out, /Personal: Habit tracker/, "another tab's list is one click away");
    assert.match(out, /Meadowlark/, "a swatch past the first few is one click away");
  });

  it("prints a product's title and price once when the page repeats them for phones, and keeps phone-only words", () => {
    const head = (cls: string) => `<div class="${cls}"><h1>Dark Roast Coffee</h1><p>$19.99</p></div>`;
    const out = md(`<html><body>${head("md:hidden")}<div class="gallery"><img src="/bag.jpg" alt="Bag"></div>
      <div class="info">${head("hidden md:block")}<p>A bold dark roast of arabica and robusta beans, fair trade.</p></div>
      <div class="d-lg-none"><p>Swipe the pictures to see the back of the bag.</p></div></body></html>`);
    assert.equal(out.match(/Dark Roast Coffee/g)?.length, 1, out);
    assert.equal(out.match(/\$19\.99/g)?.length, 1, out);
    assert.match(
      out,
      /Swipe the pictures/,
      "words only the phone layout has stay: a static page may hold no other copy",
    );
  });

  it("leaves out a hidden list of raw addresses even when it is longer than the page's own words", () => {
    const thumbs = ["Bone", "Mushroom", "Powder", "Atlantic", "Chestnut", "Ecru", "Khaki", "Moss"]
      .map(
        (c) =>
          `<dt>cat_thumb_${c}:</dt><dd>https://cdn.example.com/s-hsi95/images/stencil/160x160/uploaded_images/5001/WEB_THUMBNAILS/5001_STAPLE_TEE_${c.toUpperCase()}_THUMB_1.jpg</dd>`,
      )
      .join("");
    const out =
      md(`<html><body><h1>Staple Tee</h1><p>Regular fit, 5.3 oz combed cotton, with neck ribbing and side seams.</p>
      <dl class="productView-info hide"><dt>SKU:</dt><dd>5001</dd>${thumbs}</dl></body></html>`);
    assert.match(out, /Regular fit/);
    assert.doesNotMatch(out, /cat\\?_thumb|THUMBNAILS|SKU/, "the theme's hidden custom fields");
  });

  it("leaves out a card's second picture that only shows under the pointer", () => {
    const out = md(`<html><body><h1>Standing desks</h1><ul>
      <li><a href="/desk/v2"><img src="/img/v2.jpg" alt="Oak desk frame, front view"><img class="hover-img" src="/img/v2-side.jpg" alt="Oak desk frame, side view">V2 Desk</a> $599</li>
      <li><a href="/desk/pro"><img src="/img/pro.jpg" alt="Walnut desk top"><img class="tile-image product-tile-image-secondary" src="/img/pro-b.jpg" alt="Walnut desk under a monitor">Pro Desk</a> $899</li>
      <li><a href="/board"><img src="/img/board.jpg" alt="Balance board"><img src="/img/board-2.jpg" alt="Bamboo Motion-X Board hover image">Motion-X Board</a> $99</li>
      </ul></body></html>`);
    for (const kept of ["front view", "Walnut desk top", "Balance board", "V2 Desk", "Pro Desk", "$899"])
      assert.ok(out.includes(kept), `lost ${kept}`);
    for (const gone of ["side view", "under a monitor", "hover image", "v2-side.jpg"])
      assert.ok(!out.includes(gone), `kept ${gone}`);
  });

  it("prints a product's sticky bar once, where the page has it, but keeps sticky parts with words of their own", () => {
    const out = md(`<html><body><main>
      <h1>Sundara Headphones</h1><div class="price">$179</div><button>Add to cart</button>
      <p>Planar magnetic headphones with an open back and a wide, natural stage.</p>
      <aside class="sticky-column"><p>Free returns within 60 days on every pair.</p></aside>
      <sticky-product-actions class="sticky-product-actions"><div>Sundara Headphones</div><div>$179</div><button>Add to cart</button></sticky-product-actions>
      <nav class="c-sticky-navigation"><a href="#specs">Specifications</a></nav><h2 id="specs">Specifications</h2><p>Impedance 37 ohm.</p>
      </main></body></html>`);
    assert.equal(out.match(/\$179/g)?.length, 1, "the price once");
    assert.equal(out.match(/Sundara Headphones/g)?.length, 1, "the name once");
    assert.match(out, /Free returns within 60 days/, "a sticky column with words of its own");
    assert.match(out, /\[Specifications\]\(\S*#specs\)/, "an in-page menu is navigation, not a copy");
  });

  it("reads a script-built page from its <noscript> when that is where its content is", () => {
    const page = (visible: string) =>
      md(`<html><body><div id="app">${visible}</div><noscript><div class="crawler">
        <p>First post of the thread, written by a person for people.</p><script>x()</script></div></noscript></body></html>`);
    assert.match(page(""), /First post of the thread/);
    assert.doesNotMatch(page(""), /x\(\)/);
    const rendered = page(`<p>${"A page that has rendered its own content already. ".repeat(10)}</p>`);
    assert.doesNotMatch(rendered, /First post of the thread/);
  });
});

describe("consent notices", () => {
  const notice = `<div class="x9f2 panel"><p>We use cookies and similar technologies to personalise content and
    measure ads. By clicking 'Accept All' you agree, as outlined in our <a href="/cookie-policy">Cookie Policy</a>.</p>
    <button>Accept All</button><button>Configure Settings</button></div>`;

  it("go by what they say, whatever their markup is named, in whole-page and main-content markdown", () => {
    const html = `<html><body>${notice}<main><h1>Automatic watches</h1>
      <p>An automatic watch winds itself with no need for a battery, as a rotor turns with every move.</p></main></body></html>`;
    for (const onlyMainContent of [false, true]) {
      const out = htmlToMarkdown(html, { baseUrl, onlyMainContent }).markdown;
      assert.doesNotMatch(out, /We use cookies|Accept All/);
      assert.match(out, /An automatic watch winds itself/);
    }
  });

  it("include a cookie preference center, long as it is", () => {
    const kinds = [
      "Strictly Necessary Cookies",
      "Analytics Cookies",
      "Functional Cookies",
      "Targeting Cookies",
    ];
    const center = kinds
      .map(
        (k) =>
          `<h4>${k}</h4><p>${"These cookies help the site work and are described at length here. ".repeat(6)}</p>`,
      )
      .join("");
    const html = `<html><body><div class="pc-x1"><h3>Manage Consent Preferences</h3>${center}</div>
      <main><p>Posted March 19: does anyone know what these two mounting points on the case are for?</p></main></body></html>`;
    const out = htmlToMarkdown(html, { baseUrl, onlyMainContent: true }).markdown;
    assert.doesNotMatch(out, /Consent Preferences|Cookies/);
    assert.match(out, /two mounting points/);
  });

  it("include one that never says cookie, only that using the site is consenting to its policy", () => {
    const html = `<html><body><div class="bar-x"><h5>This site uses various technologies, as described in our
      <a href="/privacy">Privacy Policy</a>, for personalization and advertising. By continuing to use this website you
      consent to our <a href="/privacy">Privacy Policy</a> and <a href="/terms">Terms of Use</a>.</h5><button>I understand</button></div>
      <main><h1>Find a math tutor</h1><p>Connect with a qualified tutor online for one-on-one help with algebra,
      geometry and calculus, whenever your homework needs it.</p>
      <p>By using the tutor's whiteboard you agree to nothing more than drawing on it together, and many students
      find that explaining a problem aloud is half of solving it, which is why sessions start with the student
      talking the tutor through what they tried, what they expected to happen and where they got stuck.</p></main></body></html>`;
    for (const onlyMainContent of [false, true]) {
      const out = htmlToMarkdown(html, { baseUrl, onlyMainContent }).markdown;
      assert.doesNotMatch(out, /various technologies|I understand/);
      assert.match(out, /Connect with a qualified tutor/);
      assert.match(out, /whiteboard you agree to nothing more/, "a paragraph of the text is no notice");
    }
  });

  it("leave alone a text about cookies that asks nothing, and a long one", () => {
    const recipe = md(`<p>Bake the cookies for twelve minutes, then let them cool on a rack.</p>`);
    assert.match(recipe, /Bake the cookies/);
    const long = md(
      `<article><p>${"Browsers store cookies, and sites ask consent to set them. ".repeat(40)}</p></article>`,
    );
    assert.match(long, /Browsers store cookies/);
  });
});

describe("image carousels", () => {
  it("keep their first picture when every slide shows the same thing", () => {
    const slides = [0, 1, 2, 3].map((i) => `<li><img src="/s${i}.jpg" alt="Camp Stove ${i}"></li>`).join("");
    const out = md(`<ul class="slides">${slides}</ul><p><a href="/p/1">Camp Stove</a> $275.00</p>`);
    assert.match(out, /!\[Camp Stove 0\]\(https:\/\/example\.com\/s0\.jpg\)/);
    assert.doesNotMatch(out, /Camp Stove [123]/);
  });

  it("keep their first picture when every slide is the thing's name and a view of it", () => {
    const alts = ["Trail Tent 2", "Trail Tent 2 side view", "Trail Tent 2 (Green)", "Trail Tent 2: packed"];
    const slides = alts.map((a, i) => `<li><img src="/t${i}.jpg" alt="${a}"></li>`).join("");
    const out = md(`<a href="/p/2"><ul>${slides}</ul></a><p><a href="/p/2">Trail Tent 2</a> $199.00</p>`);
    assert.match(out, /!\[Trail Tent 2\]\(https:\/\/example\.com\/t0\.jpg\)/);
    assert.doesNotMatch(out, /side view|Green|packed/);
  });

  it("leave pictures whose short shared name says nothing about what they show", () => {
    const out = md(
      ["Photo", "Photo of the bridge", "Photo of the harbour"]
        .map((a, i) => `<div><img src="/h${i}.jpg" alt="${a}"></div>`)
        .join(""),
    );
    for (const alt of ["Photo of the bridge", "Photo of the harbour"])
      assert.ok(out.includes(`![${alt}]`), alt);
  });

  it("print a looping carousel's slides once, not the copies its script made to wrap around", () => {
    const slide = (cls: string, i: number) =>
      `<div class="${cls}"><img src="/v${i}.jpg" alt="View ${i} of the walnut standing desk"></div>`;
    const out = md(
      `<div class="swiper-wrapper">${slide("swiper-slide swiper-slide-duplicate", 2)}` +
        `${[0, 1, 2].map((i) => slide("swiper-slide", i)).join("")}${slide("swiper-slide swiper-slide-duplicate", 0)}</div>` +
        `<div class="slick-track">${[5, 6, 7].map((i) => slide("slick-slide", i)).join("")}${slide("slick-slide slick-cloned", 5)}</div>` +
        `<p><button class="btn duplicate">Duplicate this list</button></p>`,
    );
    for (const i of [0, 1, 2, 5, 6, 7])
      assert.equal(out.split(`View ${i} of`).length - 1, 1, `view ${i}: ${out}`);
    assert.match(out, /Duplicate this list/, "a button named duplicate is no cloned slide");
  });

  it("print a gallery's pictures once when a strip of thumbnails repeats them", () => {
    const alts = [
      "Front of the oak sideboard",
      "Oak sideboard with open doors",
      "Detail of the brass handles",
    ];
    const big = alts.map((a, i) => `<li><img src="/p${i}.jpg?w=1200" alt="${a}"></li>`).join("");
    const thumbs = alts
      .map((a, i) => `<div class="thumb"><img src="/p${i}.jpg?w=80" alt="${a}"></div>`)
      .join("");
    const out = md(
      `<ul class="gallery">${big}</ul><div class="thumbs">${thumbs}</div><p>Solid oak, 160 cm.</p>`,
    );
    for (const a of alts) assert.equal(out.split(a).length - 1, 1, `${a}: ${out}`);
  });

  it("keep the same picture where each copy belongs to its own text, like a review's stars", () => {
    const review = (who: string) =>
      `<div class="review"><img src="/stars5.svg" alt="Rated 5 out of 5"><p>${who}: fits perfectly, sturdy.</p></div>`;
    const out = md(`<h2>Reviews</h2>${review("Ana")}${review("Ben")}${review("Caro")}`);
    assert.equal(out.split("Rated 5 out of 5").length - 1, 3, out);
  });

  it("leave a gallery of different pictures whole", () => {
    const out = md(
      ["Bridge", "Harbour", "Old town"]
        .map((a, i) => `<div><img src="/g${i}.jpg" alt="${a}"></div>`)
        .join(""),
    );
    for (const alt of ["Bridge", "Harbour", "Old town"]) assert.ok(out.includes(`![${alt}]`), alt);
  });
});

describe("screen-reader copies", () => {
  it("prints text once when a visually hidden span repeats it for screen readers", () => {
    const out = md(
      `<h1>Blue mug</h1><div><span class="price">GBP 12.00<span class="clipped">GBP 12.00</span></span></div>` +
        `<div><span aria-hidden="true">Sat, Nov 02</span><span class="clipped">Sat, Nov 02</span></div>`,
    );
    assert.equal(out.match(/GBP 12\.00/g)?.length, 1, out);
    assert.equal(out.match(/Sat, Nov 02/g)?.length, 1, out);
  });

  it("keeps short values that happen to repeat, and text that differs", () => {
    const out = md(
      `<p><span>Yes</span><span>Yes</span></p><p><span>Ships today</span><span>Ships today from Leeds</span></p>`,
    );
    assert.equal(out.match(/Yes/g)?.length, 2, out);
    assert.match(out, /Ships today.*Ships today from Leeds/);
  });
});

describe("stray table parts", () => {
  it("keeps the text of rows and cells that sit outside any table, instead of failing", () => {
    // Seen on a real comparison page: a script-built grid of <tr>/<td> inside plain <div>s.
    const out = md(`<div class="grid"><tr><th scope="row"><a href="/a">Plan A</a></th>
      <div><td><strong>Highly trained</strong></td><td>$9,000</td></div></tr></div>`);
    for (const text of ["[Plan A](https://example.com/a)", "**Highly trained**", "$9,000"])
      assert.ok(out.includes(text), `${text} in ${out}`);
  });
});

describe("title", () => {
  it("is the trimmed <title>, not an SVG <title>", () => {
    const result = htmlToMarkdown(
      `<html><head><title>
        Page   title </title></head><body><svg><title>icon</title></svg><h1>Heading</h1></body></html>`,
      { baseUrl },
    );
    assert.equal(result.title, "Page title");
  });

  it("falls back to the first visible <h1>", () => {
    const result = htmlToMarkdown(`<h1 hidden>Hidden</h1><h1>First&nbsp;<em>one</em></h1><h1>Second</h1>`, {
      baseUrl,
    });
    assert.equal(result.title, "First one");
  });

  it("is absent when there is neither", () => {
    assert.equal("title" in htmlToMarkdown("<p>x</p>", { baseUrl }), false);
  });
});

describe("large pages", () => {
  // Speed is the benchmarks' job (bench/markdown-quality prints time per page against a baseline);
  // this checks that a page of this size comes out whole.
  it("converts a ~1.5 MB page whole: every section, code block and table row", () => {
    const words = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor".split(" ");
    const text = (i: number, n: number) =>
      Array.from({ length: n }, (_, k) => words[(i + k) % words.length]).join(" ");
    const icon = `<svg viewBox="0 0 16 16"><path d="M8 0C3.58 0 0 3.58 0 8"></path></svg>`;
    const row = (i: number) =>
      `<tr><td><a href="/x/${i}">${text(i, 2)}</a></td><td>${i}</td><td>${text(i, 6)}</td></tr>`;
    let body = `<script>window.__DATA__=${JSON.stringify(Array.from({ length: 2000 }, (_, i) => text(i, 8)))}</script>`;
    let sections = 0;
    let codeBlocks = 0;
    let tables = 0;
    for (let s = 0; body.length < 1_500_000; s++) {
      body += `<h2>Section ${s} ${text(s, 3)} ${icon}</h2>`;
      sections++;
      for (let p = 0; p < 6; p++) {
        body += `<p>${text(s + p, 20)} <a href="/wiki/${s}_${p}">${text(p, 2)}</a> <b>${text(s, 2)}</b> ${text(p, 25)}.</p>`;
      }
      body += `<ul>${Array.from({ length: 5 }, (_, i) => `<li>${text(i, 8)} <code>x_${i}</code></li>`).join("")}</ul>`;
      if (s % 5 === 0) {
        body += `<pre><code class="language-py">${"def f(x):\n    return x * 2\n".repeat(8)}</code></pre>`;
        codeBlocks++;
      }
      if (s % 15 === 0) {
        body += `<table><tr><th>a</th><th>b</th><th>c</th></tr>${Array.from({ length: 60 }, (_, i) => row(i)).join("")}</table>`;
        tables++;
      }
    }
    const html = `<!doctype html><html><head><title>Big</title></head><body><main>${body}</main></body></html>`;

    const { markdown } = htmlToMarkdown(html, { baseUrl });
    assert.equal(markdown.match(/^## Section \d+/gm)?.length, sections);
    assert.equal(markdown.match(/^```py$/gm)?.length, codeBlocks);
    assert.equal(
      markdown.match(/^\| \[[a-z ]+\]\(https:\/\/example\.com\/x\/59\) \| 59 +\|/gm)?.length,
      tables,
    );
    assert.ok(!markdown.includes("__DATA__"), "the script's data is not text");
  });
});
