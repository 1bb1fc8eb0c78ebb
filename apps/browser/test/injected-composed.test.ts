/*
 * The composed DOM's in-page programs and the small page reads, run from their generated bundles (the
 * very text the worker sends) in a real DOM.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import collectFrameLinks from "../src/injected/generated/collect-frame-links.ts";
import composeFrameHtml from "../src/injected/generated/compose-frame-html.ts";
import frameContentOrigin from "../src/injected/generated/frame-content-origin.ts";
import linksAndTitle from "../src/injected/generated/links-and-title.ts";
import linksWithText from "../src/injected/generated/links-with-text.ts";
import pageSize from "../src/injected/generated/page-size.ts";
import { inPageDom } from "./in-page-dom.ts";

const dom = inPageDom();

// An open shadow root with a named and a default slot, fallback content, hidden parts and a link; the
// light DOM beside it has a hidden paragraph, links (one twice, one with a fragment) and an iframe.
const SHADOW_PAGE = `<!doctype html><html><head><title>Shadow page</title></head><body>
<p>Light before</p>
<p hidden>Hidden light text</p>
<a href="/one">One</a>
<a href="/one#again"></a>
<a href="https://other.test/two">Two</a>
<x-card><span slot="title">Slotted title</span><b>Slotted body</b><i slot="nowhere">Unassigned text</i></x-card>
<div style="display:none"><a href="/hidden-light">Hidden light link</a></div>
<iframe srcdoc="inner" style="margin: 7px; border: 3px solid; padding: 5px"></iframe>
<script>
  const host = document.querySelector("x-card");
  host.attachShadow({ mode: "open" }).innerHTML =
    '<style>h2 { color: red }</style><h2><slot name="title">Title fallback</slot></h2>' +
    '<div class="body"><slot>Body fallback</slot></div><p style="display:none">Hidden shadow text</p>' +
    '<a href="/shadow">Shadow link</a><a href="/one">One again</a>';
</script>
<p>Light after</p>
</body></html>`;

const composeArgs = {
  visibleOnly: true,
  absolutize: true,
  part: "body" as const,
  frames: [],
  token: "t",
  maxShadowRoots: 100,
};

/** The markup without the page's own script, which holds every text of the shadow tree. */
const withoutScripts = (html: string) => html.replace(/<script\b[\s\S]*?<\/script>/g, "");

describe("composeFrameHtml (bundle)", () => {
  test("an open shadow root's content stands in place of its host's children, slotted light children in it", async () => {
    const page = await dom.page(SHADOW_PAGE);
    const out = await page.evaluate(composeFrameHtml, { ...composeArgs, visibleOnly: false });
    assert.equal(out.shadowRoots, 1);
    assert.equal(out.shadowTruncated, false);
    assert.equal(out.unmarkedFrames, 1);
    const html = withoutScripts(out.html);
    assert.ok(
      html.includes(
        '<x-card><style>h2 { color: red }</style><h2><span slot="title">Slotted title</span></h2><div class="body"><b>Slotted body</b></div>',
      ),
      html,
    );
    for (const absent of ["Title fallback", "Body fallback", "Unassigned text"])
      assert.ok(!html.includes(absent), `${absent} should not be in ${html}`);
    // Not visibleOnly: what is hidden stays.
    assert.ok(html.includes("Hidden light text") && html.includes("Hidden shadow text"));
    assert.ok(html.includes('href="http://in-page.test/shadow"'), "links made absolute");
    // The page's DOM is not touched.
    assert.equal(await page.locator("x-card").evaluate((el) => el.children.length), 3);
  });

  test("visibleOnly leaves out hidden elements, in the light DOM and in shadow trees, and shadow styles", async () => {
    const page = await dom.page(SHADOW_PAGE);
    const out = await page.evaluate(composeFrameHtml, composeArgs);
    const html = withoutScripts(out.html);
    for (const absent of ["Hidden light text", "Hidden shadow text", "Hidden light link", "<style>"])
      assert.ok(!html.includes(absent), `${absent} should not be in ${html}`);
    for (const present of ["Light before", "Slotted title", "Slotted body", "Shadow link", "Light after"])
      assert.ok(html.includes(present), `${present} should be in ${html}`);
  });

  test("the whole document, a frame marked for stitching, the links and title read beside, shadow roots capped", async () => {
    const page = await dom.page(SHADOW_PAGE);
    const iframe = await page.$("iframe");
    assert.ok(iframe);
    const out = await page.evaluate(composeFrameHtml, {
      ...composeArgs,
      part: "document" as const,
      frames: [iframe],
      maxShadowRoots: 0,
      links: 2,
    });
    assert.ok(out.html.startsWith("<!DOCTYPE html><html><head><title>Shadow page</title>"));
    assert.match(out.html, /<!--bf-frame:t:0--><iframe [^>]*><\/iframe><!--\/bf-frame:t:0-->/);
    assert.equal(out.unmarkedFrames, 0);
    assert.equal(out.shadowRoots, 0);
    assert.equal(out.shadowTruncated, true);
    assert.ok(
      out.html.includes('<x-card><span slot="title">Slotted title</span><b>Slotted body</b>'),
      "an uncomposed host keeps its light children",
    );
    assert.deepEqual(out.read, {
      links: ["http://in-page.test/one", "http://in-page.test/one#again"],
      title: "Shadow page",
    });
  });
});

describe("collectFrameLinks (bundle)", () => {
  test("absolute URLs of the document and its shadow root, without fragment, de-duplicated", async () => {
    const page = await dom.page(SHADOW_PAGE);
    const args = { visibleOnly: false, excludeExternal: false, host: null, frames: [], maxShadowRoots: 100 };
    const out = await page.evaluate(collectFrameLinks, args);
    assert.deepEqual(out.links, [
      { url: "http://in-page.test/one", text: "One" },
      { url: "https://other.test/two", text: "Two" },
      { url: "http://in-page.test/hidden-light", text: "Hidden light link" },
      { url: "http://in-page.test/shadow", text: "Shadow link" },
    ]);
    assert.equal(out.host, "in-page.test");
    assert.equal(out.shadowRoots, 1);
    assert.equal(out.shadowTruncated, false);

    const visible = await page.evaluate(collectFrameLinks, {
      ...args,
      visibleOnly: true,
      excludeExternal: true,
    });
    assert.deepEqual(
      visible.links.map((l) => l.url),
      ["http://in-page.test/one", "http://in-page.test/shadow"],
    );
  });

  test("says which of the given iframes a person could see", async () => {
    const page = await dom.page(
      `<iframe srcdoc="a"></iframe><iframe srcdoc="b" style="display:none"></iframe><iframe srcdoc="c" style="width:0;border:0"></iframe>`,
    );
    const frames = await page.$$("iframe");
    const out = await page.evaluate(collectFrameLinks, {
      visibleOnly: true,
      excludeExternal: false,
      host: null,
      frames: [...frames, null],
      maxShadowRoots: 100,
    });
    assert.deepEqual(out.framesVisible, [true, false, false, false]);
  });
});

describe("frame-content-origin, page-size, links-and-title, links-with-text (bundles)", () => {
  test("where an iframe's content box starts: its box, border and padding", async () => {
    const page = await dom.page(SHADOW_PAGE);
    const box = await page.locator("iframe").evaluate((el) => el.getBoundingClientRect().toJSON());
    const origin = await page.locator("iframe").evaluate(frameContentOrigin);
    assert.deepEqual(origin, { x: box.x + 3 + 5, y: box.y + 3 + 5 });
  });

  test("the page's whole scrollable size", async () => {
    const page = await dom.page(
      `<body style="margin:0"><div style="width:3000px;height:5000px"></div></body>`,
      { width: 800, height: 600 },
    );
    assert.deepEqual(await page.evaluate(pageSize), { width: 3000, height: 5000 });
  });

  test("the page's link targets as resolved, at most max, and its title", async () => {
    const page = await dom.page(SHADOW_PAGE);
    assert.deepEqual(await page.evaluate(linksAndTitle, 100), {
      links: [
        "http://in-page.test/one",
        "http://in-page.test/one#again",
        "https://other.test/two",
        "http://in-page.test/hidden-light",
      ],
      title: "Shadow page",
    });
    assert.deepEqual(await page.evaluate(linksAndTitle, 1), {
      links: ["http://in-page.test/one"],
      title: "Shadow page",
    });
  });

  test("the page's link targets with their text, else aria-label, title or an image's alt", async () => {
    const page = await dom.page(
      `<a href="/a">  A \n text </a><a href="/b" aria-label="B label"></a><a href="/c" title="C title"></a>` +
        `<a href="/d"><img alt="D alt"></a><a href="/e"></a><a href="/f">${"x".repeat(400)}</a>`,
    );
    const links = await page.evaluate(linksWithText, 100);
    assert.deepEqual(links.slice(0, 5), [
      ["http://in-page.test/a", "A text"],
      ["http://in-page.test/b", "B label"],
      ["http://in-page.test/c", "C title"],
      ["http://in-page.test/d", "D alt"],
      ["http://in-page.test/e", ""],
    ]);
    assert.equal(links[5]?.[1].length, 300);
    assert.equal((await page.evaluate(linksWithText, 2)).length, 2);
  });
});
