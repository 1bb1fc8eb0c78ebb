import assert from "node:assert/strict";
import { createServer, type Server, type ServerResponse } from "node:http";
import { after, before, describe, test } from "node:test";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { findChromium } from "../src/chromium.ts";
import { composedHtml, composedLinks, elementsAcrossFrames } from "../src/page/composed-dom.ts";

/*
 * Two servers on 127.0.0.1: A serves the pages, B their cross-origin frames. B is reached both as
 * 127.0.0.1:B (cross-origin, same site) and as other.test:B (cross-site: Chromium puts such a frame in a
 * process of its own, which is where a parent's script can never reach).
 */
let serverA: Server;
let serverB: Server;
let a: string;
let b: string;
let cross: string;
let browser: Browser;
let context: BrowserContext;
const hanging: ServerResponse[] = [];

const doc = (body: string, head = "<title>t</title>") =>
  `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

// Custom elements as sites build them: shadow roots attached in the constructor or when connected,
// named and default slots with fallback content, a component inside a component's shadow tree, and a
// slot passed on into another component's slot.
const COMPONENTS = `<script>
customElements.define("fancy-card", class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: "open" }).innerHTML = \`
      <style>.title { color: rgb(1, 2, 3) }</style>
      <h2 class="title"><slot name="title">Title fallback</slot></h2>
      <div class="body"><slot>Default fallback</slot></div>
      <footer><slot name="footer">Footer fallback text</slot></footer>
      <p hidden>Hidden in shadow</p>
      <p style="display:none">Display none in shadow</p>
      <a href="/shadow-link#part">Shadow link</a>
      <a href="/hidden-shadow-link" style="display:none">Hidden shadow link</a>
      <inner-badge><i>Badge slotted text</i></inner-badge>\`;
  }
});
customElements.define("inner-badge", class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: "open" }).innerHTML = "<span>Badge before</span><slot></slot><span>Badge after</span>";
  }
});
customElements.define("outer-box", class extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    this.attachShadow({ mode: "open" }).innerHTML =
      "<section><em>Outer own text</em><wrap-box><slot></slot></wrap-box></section>";
  }
});
customElements.define("frame-holder", class extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    this.attachShadow({ mode: "open" }).innerHTML =
      '<p>Holder before</p><iframe src="/in-shadow" width="300" height="60"></iframe><p>Holder after</p>';
  }
});
customElements.define("wrap-box", class extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    this.attachShadow({ mode: "open" }).innerHTML =
      "<div>Wrap before</div><slot>Wrap fallback</slot><div>Wrap after</div>";
  }
});
</script>`;

const MAIN = () =>
  doc(`<h1>Top heading</h1>
<fancy-card>
  <span slot="title">Card title light</span>
  <p>Card body light</p>
  <span slot="nowhere">Unassigned light text</span>
</fancy-card>
<outer-box><b>Outer slotted text</b></outer-box>
<dsd-host><template shadowrootmode="open"><p>Declarative shadow text</p><slot></slot></template><span>Declarative light text</span></dsd-host>
<p>Between A</p>
<iframe src="/same" width="400" height="100"></iframe>
<p>Between B</p>
<iframe src="${cross}/cross" width="600" height="400" style="margin: 10px; border: 5px solid"></iframe>
<p>Between C</p>
<iframe src="${b}/hidden" style="display:none"></iframe>
<iframe src="${b}/zero" style="width:0;height:0;border:0"></iframe>
<p>After frames</p>
<frame-holder></frame-holder>
${COMPONENTS}`);

function plainArticle(): string {
  const parts: string[] = ["<header><nav>"];
  for (let i = 0; i < 40; i++) parts.push(`<a href="/nav/${i}">Section ${i}</a> `);
  parts.push("</nav></header><main><article><h1>A long plain article</h1>");
  for (let i = 0; i < 300; i++) {
    parts.push(
      `<h2>Part ${i}</h2><p>Paragraph ${i} with <a href="/p/${i}">a link</a>, <em>emphasis</em> and <code>code</code>.</p>`,
      `<ul><li>one ${i}</li><li>two <img src="/img/${i}.png" alt=""></li></ul>`,
    );
    if (i % 50 === 0) parts.push(`<div style="display:none"><p>hidden ${i}</p></div>`);
  }
  parts.push("</article></main><footer>End</footer>");
  return doc(parts.join(""));
}

before(async () => {
  serverA = createServer((req, res) => {
    res.setHeader("content-type", "text/html");
    const path = req.url ?? "/";
    if (path === "/main") res.end(MAIN());
    else if (path === "/same")
      res.end(doc(`<p>Same origin frame text</p><a href="rel/same-link">Same link</a>`));
    else if (path === "/in-shadow") res.end(doc("<p>Frame in shadow text</p>"));
    else if (path === "/plain") res.end(plainArticle());
    else if (path === "/hang")
      res.end(
        doc(`<p>Hang top</p>
<iframe src="${b}/never"></iframe>
<iframe src="${cross}/busy"></iframe>
<iframe src="/partial"></iframe>
<p>Hang bottom</p>`),
      );
    else if (path === "/churn")
      res.end(
        doc(`<p>Churn top</p><div id="holder"></div><p>Churn bottom</p>
<script>
setInterval(() => {
  const frame = document.createElement("iframe");
  frame.src = Math.random() < 0.5 ? "/same" : "${cross}/nested";
  document.getElementById("holder").replaceChildren(frame);
}, 30);
</script>`),
      );
    else if (path === "/partial") {
      res.write("<!doctype html><html><body><p>Partial frame text</p>");
      hanging.push(res);
    } else res.end(doc("<p>nothing here</p>"));
  });
  serverB = createServer((req, res) => {
    res.setHeader("content-type", "text/html");
    const path = req.url ?? "/";
    if (path === "/cross")
      res.end(
        doc(`<p>Cross origin frame text</p>
<a href="/cross-link">Cross link</a>
<img src="pic.png" alt="picture">
<p hidden>Cross hidden text</p>
<shadow-note><span>Note slotted</span></shadow-note>
<iframe src="/nested" width="300" height="80"></iframe>
<p>Cross after nested</p>
<p>${"Long cross text. ".repeat(150)}</p>
<script>
customElements.define("shadow-note", class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: "open" }).innerHTML = '<a href="note-link">Note shadow link</a> <slot></slot>';
  }
});
</script>`),
      );
    else if (path === "/nested")
      res.end(doc(`<p>Nested frame text</p><a href="deep/nested-link">Nested link</a>`));
    else if (path === "/hidden")
      res.end(doc(`<p>Hidden frame text</p><a href="/hidden-frame-link">Hidden frame link</a>`));
    else if (path === "/zero") res.end(doc("<p>Zero size frame text</p>"));
    else if (path === "/busy") res.end(doc("<p>Busy frame text</p><script>for (;;) {}</script>"));
    else if (path === "/never") hanging.push(res);
    else res.end(doc("<p>nothing here</p>"));
  });
  await new Promise<void>((r) => serverA.listen(0, "127.0.0.1", r));
  await new Promise<void>((r) => serverB.listen(0, "127.0.0.1", r));
  a = `http://127.0.0.1:${(serverA.address() as { port: number }).port}`;
  const portB = (serverB.address() as { port: number }).port;
  b = `http://127.0.0.1:${portB}`;
  cross = `http://other.test:${portB}`;
  browser = await chromium.launch({
    executablePath: findChromium(),
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--host-resolver-rules=MAP other.test 127.0.0.1",
    ],
  });
  context = await browser.newContext();
});

after(async () => {
  await browser.close();
  for (const res of hanging) res.destroy();
  serverA.closeAllConnections();
  serverB.closeAllConnections();
  serverA.close();
  serverB.close();
});

async function open(path: string, waitUntil: "load" | "domcontentloaded" = "load"): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${a}${path}`, { waitUntil });
  return page;
}

/** Each string occurs in `html`, in this order. */
function assertInOrder(html: string, texts: string[]): void {
  let at = -1;
  for (const t of texts) {
    const i = html.indexOf(t, at + 1);
    assert.ok(i > at, `"${t}" should come after "${texts[texts.indexOf(t) - 1] ?? "the start"}"`);
    at = i;
  }
}

/** The light-DOM serializer markdown used before composition: what a plain page must still give. The rendered DOM without what a person cannot see, with every link and image URL made absolute. */
function visibleDocumentHtml(): string {
  const originals = Array.from(document.documentElement.querySelectorAll("*"));
  const clone = document.documentElement.cloneNode(true) as HTMLElement;
  const copies = Array.from(clone.querySelectorAll("*"));
  const drop: Element[] = [];
  originals.forEach((el, i) => {
    const copy = copies[i];
    if (!copy) return;
    if (el instanceof HTMLElement && !el.closest("head")) {
      const style = getComputedStyle(el);
      if (style.display === "none" || style.visibility === "hidden" || el.hidden) {
        drop.push(copy);
        return;
      }
    }
    if (el instanceof HTMLAnchorElement && el.getAttribute("href")) copy.setAttribute("href", el.href);
    if (el instanceof HTMLImageElement && el.getAttribute("src"))
      copy.setAttribute("src", el.currentSrc || el.src);
  });
  for (const el of drop) el.remove();
  return `<!DOCTYPE html>${clone.outerHTML}`;
}

describe("composedHtml", () => {
  test("visibleOnly: shadow roots composed through their slots, frames where their iframes are", async () => {
    const page = await open("/main");
    try {
      assert.ok(
        page.frames().some((f) => f.url().startsWith(cross)),
        "the cross-site frame is there",
      );
      const before = await page.content();
      const out = await composedHtml(page, { visibleOnly: true });
      const { html } = out;
      assertInOrder(html, [
        "<title>t</title>",
        "Top heading",
        "Card title light",
        "Card body light",
        "Footer fallback text",
        "Shadow link",
        "Badge before",
        "Badge slotted text",
        "Badge after",
        "Outer own text",
        "Wrap before",
        "Outer slotted text",
        "Wrap after",
        "Declarative shadow text",
        "Declarative light text",
        "Between A",
        `<div data-frame-src="${a}/same">`,
        "Same origin frame text",
        "Between B",
        `<div data-frame-src="${cross}/cross">`,
        "Cross origin frame text",
        "Note shadow link",
        "Note slotted",
        `<div data-frame-src="${cross}/nested">`,
        "Nested frame text",
        "Cross after nested",
        "Between C",
        "After frames",
        "Holder before",
        `<div data-frame-src="${a}/in-shadow">`,
        "Frame in shadow text",
        "Holder after",
      ]);
      for (const absent of [
        "Unassigned light text",
        "Title fallback",
        "Default fallback",
        "Wrap fallback",
        "Hidden in shadow",
        "Display none in shadow",
        "Hidden shadow link",
        "rgb(1, 2, 3)",
        "Cross hidden text",
        "Hidden frame text",
        "Zero size frame text",
        "<iframe",
        "<slot",
        "bf-frame",
        "customElements.define",
      ])
        assert.ok(!html.includes(absent), `${absent} should not be in the html`);
      // Links and images absolute against their own frame's URL.
      for (const url of [
        `href="${a}/shadow-link#part"`,
        `href="${a}/rel/same-link"`,
        `href="${cross}/cross-link"`,
        `src="${cross}/pic.png"`,
        `href="${cross}/note-link"`,
        `href="${cross}/deep/nested-link"`,
      ])
        assert.ok(html.includes(url), `${url} should be in the html`);
      assert.equal(out.frames, 4);
      assert.equal(out.shadowRoots, 7);
      assert.equal(out.truncated, false);
      assert.equal(await page.content(), before, "the page's own DOM is left as it was");
    } finally {
      await page.close();
    }
  });

  test("not visibleOnly: the composed DOM of every node, hidden frames included", async () => {
    const page = await open("/main");
    try {
      const out = await composedHtml(page, { visibleOnly: false });
      const { html } = out;
      assertInOrder(html, [
        "Top heading",
        "rgb(1, 2, 3)",
        "Card title light",
        "Card body light",
        "Hidden in shadow",
        'href="/shadow-link#part"',
        "Between A",
        "Same origin frame text",
        "Cross origin frame text",
        "Cross hidden text",
        "Nested frame text",
        "Between C",
        `<div data-frame-src="${b}/hidden">`,
        "Hidden frame text",
        "Zero size frame text",
        "After frames",
        "Frame in shadow text",
        "customElements.define",
      ]);
      assert.ok(html.includes('<h2 class="title"><span slot="title">Card title light</span></h2>'));
      // The components' script stays in this html, and it has every text of their shadow trees.
      const withoutScripts = html.replace(/<script\b[\s\S]*?<\/script>/g, "");
      for (const absent of ["Unassigned light text", "Title fallback", "Wrap fallback", "bf-frame"])
        assert.ok(!withoutScripts.includes(absent), `${absent} should not be in the html`);
      assert.ok(html.includes(`href="${cross}/deep/nested-link"`), "frame URLs are absolute");
      assert.equal(out.frames, 6);
      assert.equal(out.truncated, false);
    } finally {
      await page.close();
    }
  });

  test("links: the page's own link targets and title come in the same call, the html unchanged", async () => {
    // What a crawl read in a call of its own before (tasks/job-page.ts): every a[href] as resolved, and the title.
    const ownRead = (page: Page) =>
      page.evaluate(() => ({
        links: Array.from(document.querySelectorAll("a[href]"), (a) => (a as HTMLAnchorElement).href),
        title: document.title,
      }));
    const main = await open("/main");
    try {
      // With frames and shadow roots stitched in, the read is still the page's own document.
      const framed = await composedHtml(main, { visibleOnly: true, links: 2000 });
      assert.deepEqual(framed.read, await ownRead(main));
      assert.equal(framed.frames, 4);
    } finally {
      await main.close();
    }
    const page = await open("/plain");
    try {
      const own = await ownRead(page);
      assert.equal(own.links.length, 340);
      for (const visibleOnly of [true, false]) {
        const plain = await composedHtml(page, { visibleOnly, limits: { maxDepth: 0 } });
        assert.equal(plain.read, undefined, "not read unless asked");
        const out = await composedHtml(page, { visibleOnly, limits: { maxDepth: 0 }, links: 2000 });
        assert.deepEqual(out.read, own);
        assert.equal(
          out.html.replace(/bf-frame:[0-9a-f]+:/g, ""),
          plain.html.replace(/bf-frame:[0-9a-f]+:/g, ""),
        );
        const capped = await composedHtml(page, { visibleOnly, limits: { maxDepth: 0 }, links: 1 });
        assert.deepEqual(capped.read, { links: own.links.slice(0, 1), title: own.title });
      }
    } finally {
      await page.close();
    }
  });

  test("limits: depth, frames, shadow roots and bytes cut what comes in, and say so", async () => {
    const page = await open("/main");
    try {
      const shallow = await composedHtml(page, { visibleOnly: true, limits: { maxDepth: 1 } });
      assert.ok(shallow.html.includes("Cross origin frame text"));
      assert.ok(!shallow.html.includes("Nested frame text"));
      assert.equal(shallow.frames, 3);
      assert.equal(shallow.truncated, true);

      const noFrames = await composedHtml(page, { visibleOnly: true, limits: { maxDepth: 0 } });
      assert.ok(!noFrames.html.includes("Same origin frame text"));
      assert.ok(noFrames.html.includes("Badge slotted text"));
      assert.equal(noFrames.frames, 0);
      assert.equal(noFrames.truncated, true);

      const oneFrame = await composedHtml(page, { visibleOnly: true, limits: { maxFrames: 1 } });
      assert.ok(oneFrame.html.includes("Same origin frame text"));
      assert.ok(!oneFrame.html.includes("Cross origin frame text"));
      assert.equal(oneFrame.frames, 1);
      assert.equal(oneFrame.truncated, true);

      const oneShadow = await composedHtml(page, { visibleOnly: true, limits: { maxShadowRoots: 1 } });
      assert.equal(oneShadow.shadowRoots, 1);
      assert.ok(oneShadow.html.includes("Card title light"));
      assert.ok(!oneShadow.html.includes("Badge before"), "the second shadow root is not composed");
      assert.ok(oneShadow.html.includes("Outer slotted text"), "an uncomposed host keeps its light children");
      assert.equal(oneShadow.truncated, true);

      const full = await composedHtml(page, { visibleOnly: true, limits: { maxDepth: 0 } });
      const small = await composedHtml(page, {
        visibleOnly: true,
        // Room for the frame markers in the page and the small first frame, not for the long second one.
        limits: { maxBytes: full.html.length + 1000 },
      });
      assert.ok(small.html.includes("Same origin frame text"), "a small first frame fits");
      assert.ok(!small.html.includes("Cross origin frame text"), "the rest does not");
      assert.equal(small.truncated, true);
    } finally {
      await page.close();
    }
  });

  // A hang fails the test at its timeout; no timing is asserted.
  test("frames that never load, never answer or never stop running do not hang it", {
    timeout: 60_000,
  }, async () => {
    const page = await open("/hang", "domcontentloaded");
    try {
      const out = await composedHtml(page, { visibleOnly: true, limits: { frameTimeoutMs: 1000 } });
      assertInOrder(out.html, ["Hang top", "Hang bottom"]);
      assert.ok(!out.html.includes("Busy frame text"), "the frame stuck in a loop is left out");

      const links = await composedLinks(page, {
        visibleOnly: false,
        excludeExternal: false,
        limits: { frameTimeoutMs: 1000 },
      });
      assert.ok(Array.isArray(links));
    } finally {
      await page.close({ runBeforeUnload: false });
    }
  });

  test("frames that come and go while it reads never fail the page", async () => {
    const page = await open("/churn");
    try {
      const limits = { frameTimeoutMs: 1000 };
      for (let i = 0; i < 10; i++) {
        const out = await composedHtml(page, { visibleOnly: i % 2 === 0, limits });
        assertInOrder(out.html, ["Churn top", "Churn bottom"]);
        await composedLinks(page, { visibleOnly: i % 2 === 0, excludeExternal: false, limits });
        const ps = await elementsAcrossFrames(page, "p", 100, limits);
        assert.ok(ps.some((m) => m.text === "Churn top"));
      }
    } finally {
      await page.close();
    }
  });

  test("a plain page comes out exactly as visibleDocumentHtml and page.content() give it", async () => {
    const page = await open("/plain");
    try {
      const composed = await composedHtml(page, { visibleOnly: true });
      assert.equal(composed.html, await page.evaluate(visibleDocumentHtml));
      const composedRaw = await composedHtml(page, { visibleOnly: false });
      assert.equal(composedRaw.html, await page.content());
      assert.equal(composed.frames + composed.shadowRoots, 0);
    } finally {
      await page.close();
    }
  });
});

describe("composedLinks", () => {
  test("links of the document, its shadow roots and every frame, absolute and de-duplicated", async () => {
    const page = await open("/main");
    try {
      const all = await composedLinks(page, { visibleOnly: false, excludeExternal: false });
      const urls = all.map((l) => l.url);
      for (const url of [
        `${a}/shadow-link`,
        `${a}/hidden-shadow-link`,
        `${a}/rel/same-link`,
        `${cross}/cross-link`,
        `${cross}/note-link`,
        `${cross}/deep/nested-link`,
        `${b}/hidden-frame-link`,
      ])
        assert.ok(urls.includes(url), `${url} should be among ${urls.join(", ")}`);
      assert.equal(new Set(urls).size, urls.length);
      assert.equal(all.find((l) => l.url === `${cross}/cross-link`)?.text, "Cross link");
      assert.ok(urls.indexOf(`${a}/shadow-link`) < urls.indexOf(`${cross}/cross-link`), "page links first");

      const visible = (await composedLinks(page, { visibleOnly: true, excludeExternal: false })).map(
        (l) => l.url,
      );
      assert.ok(visible.includes(`${a}/shadow-link`));
      assert.ok(visible.includes(`${cross}/deep/nested-link`));
      assert.ok(!visible.includes(`${a}/hidden-shadow-link`), "a hidden link in a shadow root");
      assert.ok(!visible.includes(`${b}/hidden-frame-link`), "a link in a display:none frame");

      const own = (await composedLinks(page, { visibleOnly: false, excludeExternal: true })).map(
        (l) => l.url,
      );
      assert.ok(own.includes(`${a}/rel/same-link`));
      assert.ok(own.includes(`${b}/hidden-frame-link`), "same host, other port: not external");
      assert.ok(!own.some((u) => u.startsWith(cross)), "other.test is external to 127.0.0.1");

      const shallow = (
        await composedLinks(page, { visibleOnly: false, excludeExternal: false, limits: { maxDepth: 1 } })
      ).map((l) => l.url);
      assert.ok(shallow.includes(`${cross}/cross-link`));
      assert.ok(!shallow.includes(`${cross}/deep/nested-link`));
    } finally {
      await page.close();
    }
  });
});

describe("elementsAcrossFrames", () => {
  test("matches in shadow roots and then in frames, boxes in the page's viewport", async () => {
    const page = await open("/main");
    try {
      const matches = await elementsAcrossFrames(page, "p", 100);
      const texts = matches.map((m) => m.text);
      assertInOrder(texts.join("\n"), [
        "Card body light",
        "Between A",
        "After frames",
        "Same origin frame text",
      ]);
      assert.ok(texts.includes("Cross origin frame text"));
      assert.ok(texts.includes("Nested frame text"));
      const iframe = await page.locator(`iframe[src="${cross}/cross"]`).boundingBox();
      const inFrame = matches.find((m) => m.text === "Cross origin frame text");
      assert.ok(iframe && inFrame?.box);
      // The frame's content box starts after its 10px margin (in the iframe box) and 5px border.
      assert.ok(inFrame.box.y >= iframe.y + 5 && inFrame.box.y < iframe.y + iframe.height);
      assert.ok(inFrame.box.x >= iframe.x + 5 && inFrame.box.x < iframe.x + 40);

      assert.equal((await elementsAcrossFrames(page, "p", 3)).length, 3);
      const links = await elementsAcrossFrames(page, "a", 100);
      assert.ok(links.some((m) => m.attributes.href === "deep/nested-link"));
      await assert.rejects(elementsAcrossFrames(page, "p[", 10));
    } finally {
      await page.close();
    }
  });
});
