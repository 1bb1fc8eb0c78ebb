/**
 * The account console as a person uses it, in a real Chromium (Playwright) against the running stack:
 * signing in with a key, the balance and usage moving after a scrape, a crawl's progress advancing, an open
 * session's live view link and a closed one's recording, the price table; nothing from the account's data
 * runs as script; axe-core finds no serious accessibility violation. With SCREENSHOTS_DIR set, it saves
 * the pictures the README shows.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createAccount, issueKey } from "@browserfleet/billing";
import type { Browser, Page } from "playwright-core";
import { launchPeoplesBrowser, seriousViolations } from "../helpers/people.ts";
import { type Stack, startStack } from "../helpers/stack.ts";
import { waitFor } from "../helpers/wait-for.ts";

const HOSTILE = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>`;
const shots = process.env.SCREENSHOTS_DIR;

let stack: Stack;
let browser: Browser;

before(async () => {
  stack = await startStack({ slots: 3 });
  browser = await launchPeoplesBrowser();
});

after(async () => {
  await browser?.close();
  await stack?.stop();
});

async function signIn(key: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  const res = await page.goto(`${stack.api.url}/console`);
  assert.equal(res?.status(), 200);
  assert.match(res?.headers()["content-security-policy"] ?? "", /script-src 'self'/);
  await page.getByLabel("API key").fill("bf_live_notakey00000000000000000000000");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("alert").filter({ hasText: "not valid" }).waitFor();
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.locator("[data-balance]").waitFor();
  assert.deepEqual(errors, []);
  // The key is in this tab only, never in the address.
  assert.doesNotMatch(page.url(), new RegExp(key));
  return page;
}

test("balance and usage move after a scrape; a crawl's progress advances; an open session links its live view, a closed one its recording", async () => {
  const { accountId } = await createAccount(stack.pg.database.db, { name: "Acme", balanceMicros: 5_000_000 });
  const { key } = await issueKey(stack.pg.database.db, accountId, "console");
  const page = await signIn(key);
  assert.equal(await page.locator("[data-balance]").textContent(), "$5.00");
  const scrape = await stack.post(
    "/web/v1/scrape",
    { url: `${stack.site.url}/article` },
    { authorization: `Bearer ${key}` },
  );
  assert.equal(scrape.status, 200);
  await waitFor("the balance to drop by the scrape's price", async () => {
    return (await page.locator("[data-balance]").textContent()) === "$4.999";
  });
  await page.getByText(/^1 calls, \$0\.001 over the last 14 days/).waitFor();
  await page.getByRole("cell", { name: "capture" }).first().waitFor();

  const crawl = await stack.post(
    "/web/v1/crawl",
    { url: `${stack.site.url}/crawl/`, maxDepth: 2, limit: 8 },
    { authorization: `Bearer ${key}` },
  );
  assert.equal(crawl.status, 200, JSON.stringify(crawl.body));
  const progress = page.locator(`[data-job="${crawl.body.jobId}"]`);
  const seen = new Set<string>();
  await waitFor(
    "the crawl's progress to advance to its end",
    async () => {
      const text = (await progress.textContent()) ?? "";
      seen.add(text);
      const row = await page.getByRole("row").filter({ hasText: crawl.body.jobId }).textContent();
      const [, done, of] = /^(\d+) of (\d+) pages/.exec(text) ?? [];
      return /completed/.test(row ?? "") && done !== undefined && done === of && Number(done) > 1;
    },
    60_000,
  );
  // A batch of pages that each take a while: the page shows it move, page by page, not only its end.
  const urls = Array.from({ length: 6 }, (_, i) => `${stack.site.url}/slow?ms=3000&i=${i}`);
  const batch = await stack.post("/web/v1/scrape/batch", { urls }, { authorization: `Bearer ${key}` });
  assert.equal(batch.status, 200, JSON.stringify(batch.body));
  await page.getByRole("button", { name: "Refresh" }).click();
  const moving = new Set<string>();
  await waitFor(
    "the batch's progress to advance to its end",
    async () => {
      const text = (await page.locator(`[data-job="${batch.body.jobId}"]`).textContent()) ?? "";
      if (text) moving.add(text.split(" of ")[0]!);
      return text.startsWith("6 of 6 pages");
    },
    60_000,
    100,
  );
  assert.ok(moving.size >= 2, `the page showed the batch moving: ${[...moving].join(", ")} pages done`);

  const s = await stack.post(
    "/web/v1/session",
    { url: `${stack.site.url}/form`, record: true },
    { authorization: `Bearer ${key}` },
  );
  const row = () => page.getByRole("row").filter({ hasText: s.body.sessionId });
  const watch = page
    .getByRole("row")
    .filter({ hasText: s.body.sessionId })
    .getByRole("link", { name: "Watch" });
  await watch.waitFor();
  assert.equal(await watch.getAttribute("href"), s.body.liveViewUrl);
  assert.equal(
    await row().getByRole("link", { name: "Replay so far" }).getAttribute("href"),
    s.body.recordingUrl,
  );
  await page.getByRole("cell", { name: "POST /web/v1/scrape", exact: true }).waitFor();
  if (shots) {
    await page.setViewportSize({ width: 1280, height: 1150 });
    await page.screenshot({ path: join(shots, "console.png") });
    const viewer = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await viewer.goto(s.body.liveViewUrl);
    await viewer.locator("img.frame").waitFor();
    await stack.post(
      "/web/v1/act",
      {
        sessionId: s.body.sessionId,
        actions: [{ type: { ref: s.body.data.controls[0].ref, text: "agent" } }, { press: "Tab" }],
      },
      { authorization: `Bearer ${key}` },
    );
    await viewer.locator(".actions li").nth(1).waitFor();
    await viewer.waitForTimeout(500);
    await viewer.screenshot({ path: join(shots, "live-view.png") });
    await viewer.close();
  }
  await stack.call("DELETE", `/web/v1/session/${s.body.sessionId}`, { authorization: `Bearer ${key}` });
  // Closed: no live view any more, its recording to replay.
  const replay = row().getByRole("link", { name: "Replay", exact: true });
  await replay.waitFor({ timeout: 20_000 });
  assert.equal(await replay.getAttribute("href"), s.body.recordingUrl);
  assert.equal(await row().getByRole("link", { name: "Watch" }).count(), 0);
  if (shots) {
    const replayPage = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await replayPage.goto(s.body.recordingUrl);
    await replayPage.locator(".steps li.action button").last().click();
    await replayPage.frameLocator(".frame iframe").locator("form").first().waitFor({ state: "attached" });
    await replayPage.waitForTimeout(500);
    await replayPage.screenshot({ path: join(shots, "replay.png") });
    await replayPage.close();
  }
  // Signing out forgets the key.
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByLabel("API key").waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.length), 0);
  await page.close();
});

test("an account's data shown as text only: a hostile name runs nothing; no serious accessibility violation", async () => {
  const { accountId } = await createAccount(stack.pg.database.db, {
    name: HOSTILE,
    balanceMicros: 1_000_000,
  });
  const { key } = await issueKey(stack.pg.database.db, accountId, "console");
  const page = await signIn(key);
  await page.getByText(HOSTILE, { exact: false }).first().waitFor();
  assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  assert.equal(await page.locator('img[src="x"]').count(), 0);
  assert.deepEqual(await seriousViolations(page), []);
  // And on the sign-in page.
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByLabel("API key").waitFor();
  assert.deepEqual(await seriousViolations(page), []);
  await page.close();
});
