import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { type FixtureSite, startFixtureSite } from "../../../test/fixture-site/server.ts";
import { findChromium } from "../src/chromium.ts";
import settleInit from "../src/injected/generated/settle-init.ts";
import { settlePage } from "../src/page/settle.ts";

/** Settling on pages that never stop talking to their server. */
describe("settlePage on a live page", () => {
  let site: FixtureSite;
  let browser: Browser;
  let context: BrowserContext;

  before(async () => {
    site = await startFixtureSite();
    browser = await chromium.launch({
      executablePath: findChromium(),
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
    context = await browser.newContext();
    await context.addInitScript(settleInit);
  });
  after(async () => {
    await context?.close().catch(() => {});
    await browser?.close();
    await site?.close();
  });

  /** A page that holds two long-polls open (as a chat or a live feed does) from the moment it loads. */
  async function polling(): Promise<Page> {
    const page = await context.newPage();
    await page.route(`${site.url}/polling`, (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<p>Live</p><script>
window.polls = 0;
for (const channel of ["news", "chat"]) {
  fetch("/api/slow-json?ms=60000&channel=" + channel).catch(() => {});
  window.polls++;
}
</script>`,
      }),
    );
    await page.goto(`${site.url}/polling`);
    await page.waitForFunction(() => (window as unknown as { polls: number }).polls === 2);
    return page;
  }

  it("after an act, the long-polls the page had open before it are not waited for", async () => {
    const page = await polling();
    const since = Date.now();
    const settled = await settlePage(page, { deadline: Date.now() + 1_500, quietMs: 80, since });
    assert.equal(settled.reason, "quiet");
    await page.close();
  });

  it("without that line drawn, the same page keeps the wait to its budget", async () => {
    const page = await polling();
    const settled = await settlePage(page, { deadline: Date.now() + 1_500, quietMs: 80 });
    assert.equal(settled.reason, "budget");
    await page.close();
  });
});
