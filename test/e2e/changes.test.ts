/**
 * The changes format as an agent watching pages uses it: a page scraped again reports new, same, changed
 * (with a unified diff of its markdown) or removed, compared with the same account's previous render; another
 * account's renders are not its; batch and crawl pages compare the same way.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Json } from "../helpers/mcp-client.ts";
import { type Stack, startStack } from "../helpers/stack.ts";
import { waitFor } from "../helpers/wait-for.ts";

let stack: Stack;
before(async () => {
  stack = await startStack({ slots: 2 });
});
after(async () => {
  await stack?.stop();
});

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const article = (title: string, paragraphs: string[]) =>
  `<!DOCTYPE html><html><head><title>${title}</title></head><body><article><h1>${title}</h1>${paragraphs
    .map((p) => `<p>${p}</p>`)
    .join("")}</article></body></html>`;

async function scrape(key: string, url: string, formats = ["changes"]): Promise<Json> {
  const r = await stack.post("/web/v1/scrape", { url, formats }, auth(key));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

describe("the changes format", () => {
  test("new, then same, then changed with a diff of the markdown, then removed when the page is taken down", async () => {
    const { key } = await stack.newKey(1_000_000);
    const url = `${stack.site.url}/edited/news`;
    const v1 = ["The council met on Monday.", "It approved the new bridge.", "Work starts in May."];
    stack.site.edit("/edited/news", article("Town news", v1));

    const first = await scrape(key, url, ["markdown", "changes"]);
    assert.deepEqual(first.data.changes, { status: "new", previousAt: null, diff: null });
    assert.match(first.data.markdown, /It approved the new bridge/);
    assert.deepEqual(Object.keys(first.data), ["markdown", "changes"]);
    assert.equal(first.metadata.cached, undefined);

    const beforeAgain = Date.now();
    const again = await scrape(key, `${url}#comments`);
    assert.equal(again.data.changes.status, "same", "the fragment is the same page");
    assert.equal(again.data.changes.diff, null);
    assert.ok(Date.parse(again.data.changes.previousAt) <= Date.now());
    assert.deepEqual(Object.keys(again.data), ["changes"], "markdown only when asked for");

    stack.site.edit("/edited/news", article("Town news", [v1[0]!, "It rejected the new bridge.", v1[2]!]));
    const changed = await scrape(key, url);
    assert.equal(changed.data.changes.status, "changed");
    assert.ok(
      Date.parse(changed.data.changes.previousAt) >= beforeAgain,
      "compared with the render before it",
    );
    const diff: string = changed.data.changes.diff;
    assert.match(diff, /^--- previous\t/m);
    assert.match(diff, /^\+\+\+ current\t/m);
    assert.match(diff, /^-It approved the new bridge\.$/m);
    assert.match(diff, /^\+It rejected the new bridge\.$/m);
    assert.match(diff, /^ The council met on Monday\.$/m, "with context");

    stack.site.edit("/edited/news", undefined);
    const removed = await scrape(key, url);
    assert.equal(removed.metadata.statusCode, 404);
    assert.equal(removed.data.changes.status, "removed");
    assert.equal((await scrape(key, url)).data.changes.status, "same", "still gone is no change");

    stack.site.edit("/edited/news", article("Town news", v1));
    const back = await scrape(key, url);
    assert.equal(back.data.changes.status, "changed", "back from a 404");
    assert.match(back.data.changes.diff, /^\+Work starts in May\.$/m);
  });

  test("another account's renders are not compared with; a keyless caller is told a key is needed; it is priced as a format", async () => {
    const a = await stack.newKey(1_000_000);
    const b = await stack.newKey(1_000_000);
    const url = `${stack.site.url}/edited/prices`;
    stack.site.edit("/edited/prices", article("Prices", ["Tea costs 3 euros."]));
    assert.equal((await scrape(a.key, url)).data.changes.status, "new");
    assert.equal((await scrape(a.key, url)).data.changes.status, "same");
    assert.equal((await scrape(b.key, url)).data.changes.status, "new", "b never rendered it");

    const balance = async (key: string) =>
      (await stack.call("GET", "/web/v1/account", auth(key))).body.balance.micros as number;
    const before = await balance(b.key);
    await scrape(b.key, url, ["markdown", "changes"]);
    assert.equal(before - (await balance(b.key)), 2_000, "two formats at the format price");

    const keyless = await stack.postKeyless("/web/v1/scrape", { url, formats: ["changes"] });
    assert.equal(keyless.status, 402, JSON.stringify(keyless.body));
    assert.match(keyless.body.error.message, /changes format needs an API key/);
  });

  test("batch pages compare with the account's previous render of each URL, scrape or job", async () => {
    const { key } = await stack.newKey(1_000_000);
    const [x, y] = ["/edited/x", "/edited/y"] as const;
    stack.site.edit(x, article("X", ["First version of x."]));
    stack.site.edit(y, article("Y", ["Only version of y."]));
    await scrape(key, `${stack.site.url}${x}`);
    stack.site.edit(x, article("X", ["Second version of x."]));
    const start = await stack.post(
      "/web/v1/scrape/batch",
      { urls: [`${stack.site.url}${x}`, `${stack.site.url}${y}`], formats: ["changes"] },
      auth(key),
    );
    assert.equal(start.status, 200, JSON.stringify(start.body));
    const done = await waitFor(
      "the batch to end",
      async () => {
        const r = await stack.call("GET", start.body.url, auth(key));
        assert.equal(r.body.status, "completed", JSON.stringify(r.body).slice(0, 300));
        return r.body;
      },
      60_000,
      100,
    );
    const [px, py] = done.data;
    assert.equal(px.data.changes.status, "changed");
    assert.match(px.data.changes.diff, /^-First version of x\.$/m);
    assert.match(px.data.changes.diff, /^\+Second version of x\.$/m);
    assert.equal(py.data.changes.status, "new");
    assert.equal(px.data.markdown, undefined);
    assert.equal(done.charged.micros, 2_000);
  });

  test("a live session does not offer it, and says where to ask", async () => {
    const { key } = await stack.newKey(1_000_000);
    stack.site.edit("/edited/s", article("S", ["Session page."]));
    const r = await stack.post(
      "/web/v1/session",
      { url: `${stack.site.url}/edited/s`, formats: ["markdown", "changes"] },
      auth(key),
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.errors.changes.code, "not_supported");
    assert.match(r.body.errors.changes.message, /POST \/web\/v1\/scrape/);
    await stack.call("DELETE", `/web/v1/session/${r.body.sessionId}`, auth(key));
  });
});
