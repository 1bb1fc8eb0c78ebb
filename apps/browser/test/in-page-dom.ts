/**
 * A real DOM for the unit tests of in-page code (src/injected): one Chromium per test file, a fresh page
 * per case with the given HTML. The tests run the generated bundles, the very text the worker sends.
 */
import { after, before } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";
import { findChromium } from "../src/chromium.ts";

export interface DomHarness {
  /** A page holding `html` (a whole document or a body fragment), at an http-like origin, with this viewport. */
  page(html: string, viewport?: { width: number; height: number }): Promise<Page>;
}

/** Registers before/after hooks in the calling file: the browser starts once and every page closes after. */
export function inPageDom(): DomHarness {
  let browser: Browser | undefined;
  const pages: Page[] = [];
  before(async () => {
    browser = await chromium.launch({
      executablePath: findChromium(),
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
  });
  after(async () => {
    await browser?.close();
  });
  return {
    async page(html, viewport = { width: 1280, height: 800 }) {
      if (!browser) throw new Error("inPageDom: use page() inside a test, after the before hook ran");
      for (const p of pages.splice(0)) await p.close().catch(() => {});
      const page = await browser.newPage({ viewport });
      pages.push(page);
      // A real origin (not about:blank), so location, history and CSS.escape behave as on a site.
      await page.route("http://in-page.test/**", (route) =>
        route.fulfill({ contentType: "text/html; charset=utf-8", body: html }),
      );
      await page.goto("http://in-page.test/");
      return page;
    },
  };
}
