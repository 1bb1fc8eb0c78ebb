import assert from "node:assert/strict";
import { test } from "node:test";
import { scrapeRequest } from "@browserfleet/contracts";
import { ApiError } from "../src/errors.ts";
import { ParsedBodies } from "../src/validate.ts";

const send = (bodies: ParsedBodies<typeof scrapeRequest>, text: string) =>
  bodies.parse(JSON.parse(text), Buffer.from(text));

test("the same bytes sent again read as the same request, with its defaults, and nobody can change it", () => {
  const bodies = new ParsedBodies(scrapeRequest);
  const text = JSON.stringify({ url: "https://example.com/a", formats: ["markdown"], maxAge: 60_000 });
  const first = send(bodies, text);
  assert.equal(send(bodies, text), first);
  assert.deepEqual(first.formats, ["markdown"]);
  assert.throws(() => {
    (first as { url: string }).url = "http://169.254.169.254/";
  }, TypeError);
  assert.throws(() => (first.formats as string[]).push("html"), TypeError);
  const other = send(bodies, JSON.stringify({ url: "https://example.com/b", formats: ["markdown"] }));
  assert.notEqual(other, first);
  assert.equal(other.url, "https://example.com/b");
});

test("a body that fails validation is refused every time, never remembered", () => {
  const bodies = new ParsedBodies(scrapeRequest);
  const text = JSON.stringify({ url: "not a url", formats: ["markdown"] });
  for (let i = 0; i < 2; i++)
    assert.throws(
      () => send(bodies, text),
      (err) => err instanceof ApiError && err.code === "invalid_request",
    );
});

test("only the last bodies are kept", () => {
  const bodies = new ParsedBodies(scrapeRequest, 2);
  const texts = ["a", "b", "c"].map((p) => JSON.stringify({ url: `https://example.com/${p}` }));
  const [a] = texts.map((t) => send(bodies, t));
  assert.notEqual(send(bodies, texts[0] as string), a, "the oldest was dropped");
});
