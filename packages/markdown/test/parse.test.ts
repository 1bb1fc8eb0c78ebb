/**
 * The parser as patched (patches/linkedom+*.patch): listener maps made on the first addEventListener,
 * class lists built when first asked for, tagName's upper case cached. What a DOM user relies on must
 * still hold.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Event } from "linkedom";
import { classOf, hasText, textLengthUpTo, walkElements } from "../src/dom.ts";
import { parseDocument } from "../src/parse.ts";

const ping = (bubbles: boolean) => new Event("ping", { bubbles }) as unknown as globalThis.Event;

describe("the parsed document", () => {
  it("delivers events to listeners added after parsing, bubbling up, and stops after removal", () => {
    const doc = parseDocument(`<html><body><div id="outer"><p id="inner">x</p></div></body></html>`);
    const outer = doc.getElementById("outer") as Element;
    const inner = doc.getElementById("inner") as Element;
    const heard: string[] = [];
    const onInner = () => heard.push("inner");
    inner.addEventListener("ping", onInner);
    outer.addEventListener("ping", () => heard.push("outer"));
    inner.dispatchEvent(ping(true));
    assert.deepEqual(heard, ["inner", "outer"]);
    inner.removeEventListener("ping", onInner);
    inner.dispatchEvent(ping(true));
    assert.deepEqual(heard, ["inner", "outer", "outer"]);
    // A node that never had a listener can have one removed, and dispatches to no one.
    const text = inner.firstChild as ChildNode;
    text.removeEventListener("ping", onInner);
    assert.equal(doc.body.dispatchEvent(ping(false)), true);
  });

  it("reads class names as written, whatever the spacing, and keeps them in step with changes", () => {
    const doc = parseDocument(`<div class=" card  card--wide\ncard "><span>x</span></div>`);
    const div = doc.querySelector("div") as Element;
    assert.deepEqual([...div.classList], ["card", "card--wide"]);
    assert.equal(div.className, "card card--wide");
    assert.equal(div.getAttribute("class"), "card card--wide");
    assert.ok(div.matches(".card--wide"));
    assert.match(classOf(div), /card--wide/);
    div.classList.add("open");
    assert.equal(classOf(div), "card card--wide open");
    div.setAttribute("class", "closed");
    assert.deepEqual([...div.classList], ["closed"]);
    assert.equal(classOf(div.querySelector("span") as Element), "");
  });

  it("names elements in upper case, custom elements too", () => {
    const doc = parseDocument(`<section><my-widget>a</my-widget><p>b</p><P>c</P></section>`);
    const names = [...(doc.querySelector("section") as Element).children].map((el) => el.tagName);
    assert.deepEqual(names, ["MY-WIDGET", "P", "P"]);
  });

  it("walks the elements under a node in document order, skipping the subtrees it is told to skip", () => {
    const doc = parseDocument(
      `<body><main id="m" class="x" data-a="1"><h1 title="t">Title <b>bold</b></h1><!-- note -->text` +
        `<nav><a href="/">home</a><ul><li>one</li></ul></nav><template><p>later</p></template>` +
        `<p>last <i>word</i></p></main><footer><p>after</p></footer></body>`,
    );
    const main = doc.getElementById("m") as Element;
    const seen: string[] = [];
    walkElements(main, (el) => {
      seen.push(el.nodeName);
      return el.nodeName !== "NAV";
    });
    // A template's insides are walked like any element's (callers that must not read them skip them).
    assert.deepEqual(seen, ["H1", "B", "NAV", "TEMPLATE", "P", "P", "I"]);
    // Elements added after parsing are walked too.
    main.querySelector("h1")?.append(doc.createElement("small"));
    const again: string[] = [];
    walkElements(main.querySelector("h1") as Element, (el) => void again.push(el.nodeName));
    assert.deepEqual(again, ["B", "SMALL"]);
  });

  it("tells an element's text length up to a cap, and whether it holds more than whitespace, as its textContent says", () => {
    const doc = parseDocument(
      `<body><div id="d"> <p>\u00a0</p><!-- a comment is no text --><p> one <b>two</b></p>` +
        `<svg><title>icon</title></svg><ul><li>  </li><li>three</li></ul></div><p id="blank"> \n\t<span> </span></p></body>`,
    );
    const blank = doc.getElementById("blank") as Element;
    doc.getElementById("d")?.append(doc.createTextNode(" added later"));
    for (const el of [doc.body, ...Array.from(doc.body.querySelectorAll("*"))]) {
      const text = el.textContent ?? "";
      for (const cap of [0, 3, 10, 1000])
        assert.equal(textLengthUpTo(el, cap), Math.min(text.length, cap + 1), `${el.nodeName} up to ${cap}`);
      assert.equal(hasText(el), text.trim() !== "", el.nodeName);
    }
    assert.equal(hasText(blank), false);
    blank.append(doc.createTextNode("x"));
    assert.equal(hasText(blank), true);
  });
});
