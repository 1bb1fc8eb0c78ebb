import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  COUNTRIES,
  DEVICE_KINDS,
  PLAYWRIGHT_DEVICE_NAMES,
  type ScrapeRequest,
  scrapeRequest,
} from "@browserfleet/contracts";
import { type Browser, devices } from "playwright-core";
import { ChromiumKeeper, findChromium } from "../src/chromium.ts";
import { contextOptionsFor, fitsDefaultContext, newTaskContext } from "../src/page/context.ts";
import { JobContexts } from "../src/page/job-contexts.ts";

const req = (extra: Record<string, unknown> = {}): ScrapeRequest =>
  scrapeRequest.parse({ url: "http://127.0.0.1:9/", ...extra });

describe("places and devices as context options", () => {
  test("the contracts list exactly the device names of the installed playwright-core", () => {
    assert.deepEqual([...PLAYWRIGHT_DEVICE_NAMES], Object.keys(devices));
    // mobile and tablet stand for devices whose user agent is Chrome's, the engine the page really runs on.
    for (const name of [DEVICE_KINDS.mobile, DEVICE_KINDS.tablet])
      assert.equal(devices[name]?.defaultBrowserType, "chromium", name);
  });

  test("a location sets the languages (Accept-Language list), the zone, and the capital with its permission", () => {
    const o = contextOptionsFor(req({ location: { country: "DE" } }));
    assert.equal(o.locale, "de-DE,de");
    assert.equal(o.timezoneId, "Europe/Berlin");
    assert.deepEqual(o.geolocation, { latitude: 52.52, longitude: 13.4, accuracy: 10_000 });
    assert.deepEqual(o.permissions, ["geolocation"]);
    // Accept-Language comes from the locale alone: an extra header would disagree with it on navigations.
    assert.equal(o.extraHTTPHeaders, undefined);
    const zoneOnly = contextOptionsFor(req({ location: { timezone: "Asia/Tokyo" } }));
    assert.equal(zoneOnly.timezoneId, "Asia/Tokyo");
    assert.equal(zoneOnly.locale, undefined);
    assert.equal(zoneOnly.geolocation, undefined);
  });

  test("a device sets viewport, scale, user agent, touch and mobile layout; mobile and tablet are named ones", () => {
    const pixel = devices["Pixel 7"];
    const o = contextOptionsFor(req({ device: "mobile" }));
    assert.deepEqual(o.viewport, pixel?.viewport);
    assert.equal(o.deviceScaleFactor, pixel?.deviceScaleFactor);
    assert.equal(o.userAgent, pixel?.userAgent);
    assert.equal(o.isMobile, true);
    assert.equal(o.hasTouch, true);
    assert.deepEqual(o.screen, { width: 412, height: 915 });
    assert.deepEqual(
      contextOptionsFor(req({ device: "tablet" })),
      contextOptionsFor(req({ device: "Galaxy Tab S9" })),
    );
    assert.equal(contextOptionsFor(req({ device: "iPhone 15" })).userAgent, devices["iPhone 15"]?.userAgent);
  });

  test("the caller's viewport (size and scale) and user agent win over the device's", () => {
    const o = contextOptionsFor(
      req({ device: "iPhone 15", viewport: { width: 800, height: 600 }, request: { userAgent: "Mine/1.0" } }),
    );
    assert.deepEqual(o.viewport, { width: 800, height: 600 });
    assert.equal(o.deviceScaleFactor, 1);
    assert.equal(o.userAgent, "Mine/1.0");
    assert.equal(o.isMobile, true, "still a phone's layout and touch");
    assert.equal(o.screen, undefined, "no phone screen around a viewport of the caller's");
  });

  test("desktop is the default page; any location or other device needs a context of its own", () => {
    assert.deepEqual(contextOptionsFor(req({ device: "desktop" })), contextOptionsFor(req()));
    assert.equal(fitsDefaultContext(req({ device: "desktop" })), true);
    assert.equal(fitsDefaultContext(req({ device: "mobile" })), false);
    assert.equal(fitsDefaultContext(req({ device: "Desktop Chrome" })), false, "its user agent is not ours");
    assert.equal(fitsDefaultContext(req({ location: { country: "US" } })), false);
    assert.equal(fitsDefaultContext(req({ location: { timezone: "UTC" } })), false);
    assert.equal(fitsDefaultContext(req({ location: { languages: ["en-US", "en"] } })), false);
  });
});

describe("places and devices on a real Chromium", () => {
  test("playwright-core carries our patch (a list of languages as its locale)", () => {
    const bundle = join(
      dirname(createRequire(import.meta.url).resolve("playwright-core/package.json")),
      "lib",
    );
    assert.match(
      readFileSync(join(bundle, "coreBundle.js"), "utf8"),
      /Emulation\.setLocaleOverride", \{ locale: locale\.split\(","\)\[0\] \}/,
      "patches/playwright-core+*.patch is not applied: npm install (its postinstall, patch-package) applies it",
    );
  });

  let keeper: ChromiumKeeper;
  let browser: Browser;
  let server: Server;
  let base: string;
  before(async () => {
    server = createServer((r, res) => {
      res.setHeader("content-type", "text/html");
      // A mobile page: without width=device-width a phone lays the page out 980 px wide, as real ones do.
      res.end(
        `<!doctype html><meta name="viewport" content="width=device-width"><title>t</title><p id="al">${r.headers["accept-language"] ?? ""}</p>`,
      );
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    keeper = new ChromiumKeeper(findChromium()!, []);
    browser = await keeper.browser();
  });
  after(async () => {
    await keeper.close();
    server.close();
  });

  test("the page sees one story: header, navigator, Intl, Date, geolocation, viewport and touch", async () => {
    const context = await newTaskContext(
      browser,
      req({ url: base, location: { country: "JP" }, device: "mobile" }),
    );
    try {
      const page = await context.newPage();
      await page.goto(base);
      const seen = await page.evaluate(async () => ({
        header: document.getElementById("al")?.textContent,
        fetched: await fetch(location.href).then((r) => r.text()),
        language: navigator.language,
        languages: [...navigator.languages],
        zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
        offset: new Date().getTimezoneOffset(),
        number: (1234.5).toLocaleString(),
        coarse: matchMedia("(pointer: coarse)").matches,
        width: innerWidth,
        dpr: devicePixelRatio,
        ua: navigator.userAgent,
        position: await new Promise<number[] | string>((resolve) =>
          navigator.geolocation.getCurrentPosition(
            (p) => resolve([p.coords.latitude, p.coords.longitude, p.coords.accuracy]),
            (e) => resolve(e.message),
          ),
        ),
      }));
      assert.equal(seen.header, "ja-JP,ja;q=0.9");
      assert.match(seen.fetched, />ja-JP,ja;q=0.9</, "a fetch of the page sends the same list");
      assert.equal(seen.language, "ja-JP");
      assert.deepEqual(seen.languages, ["ja-JP", "ja"]);
      assert.equal(seen.zone, "Asia/Tokyo");
      assert.equal(seen.offset, -540);
      assert.equal(seen.number, "1,234.5");
      assert.equal(seen.coarse, true);
      assert.equal(seen.width, 412);
      assert.equal(seen.dpr, 2.625);
      assert.equal(seen.ua, devices["Pixel 7"]?.userAgent);
      assert.deepEqual(seen.position, [35.68, 139.65, 10_000]);
    } finally {
      await context.close();
    }
  });

  test("Chromium takes every zone and first language of the country table", async () => {
    // One page told each country's zone and locale in turn (a context for each takes seconds).
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      for (const [code, c] of Object.entries(COUNTRIES)) {
        await cdp.send("Emulation.setTimezoneOverride", { timezoneId: c.timezone });
        await cdp.send("Emulation.setLocaleOverride", { locale: c.languages[0] });
        const seen = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions());
        // Chromium's ICU may call a zone by an older name (Asia/Kolkata is Asia/Calcutta there).
        const icu = new Intl.DateTimeFormat("en-US", { timeZone: c.timezone }).resolvedOptions().timeZone;
        assert.ok([c.timezone, icu].includes(seen.timeZone), `${code}: ${seen.timeZone}`);
        assert.equal(seen.locale, c.languages[0], code);
      }
    } finally {
      await context.close();
    }
  });

  test("a job's shared context is kept only for pages of the same location and device", async () => {
    const pool = new JobContexts((b, r) => newTaskContext(b, r), { idleMs: 60_000, maxPages: 100 });
    try {
      const lease = async (extra: Record<string, unknown>) => {
        const l = await pool.lease(browser, "job_1", req({ url: base, ...extra }));
        await l.release();
        return l;
      };
      const first = await lease({ location: { country: "FR" } });
      assert.equal((await lease({ location: { country: "FR" } })).context, first.context);
      const other = await lease({ location: { country: "ES" } });
      assert.notEqual(other.context, first.context);
      assert.notEqual(
        (await lease({ location: { country: "ES" }, device: "mobile" })).context,
        other.context,
      );
    } finally {
      await pool.closeAll();
    }
  });
});
