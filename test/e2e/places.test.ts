/**
 * Places and devices: `location` (country, languages, timezone) and `device` on scrape, session, batch and
 * MCP, seen from inside a fixture page (/places) that reports the Accept-Language header it was sent and what
 * its script reads: navigator.language(s), the Intl zone, the Date offset, pointer, width, pixel ratio, user
 * agent and navigator.geolocation. Bad countries, zones and devices are 400s naming the field.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { devices } from "playwright-core";
import { callTool, connectMcp, type Json } from "../helpers/mcp-client.ts";
import { type Stack, startStack } from "../helpers/stack.ts";
import { waitFor } from "../helpers/wait-for.ts";

let stack: Stack;
before(async () => {
  stack = await startStack({ slots: 2 });
});
after(async () => {
  await stack?.stop();
});

/** The fields that make the page report what it sees, once its geolocation callback has run. */
const reading = (path = "/places") => ({
  url: `${stack.site.url}${path}`,
  formats: ["elements"],
  selectors: ["#seen"],
  wait: { selector: "#seen[data-done]" },
});
/** What the page saw, from an answer's data. */
const seenIn = (data: Json): Json => JSON.parse(data.elements[0].matches[0].text);

async function scrapeSeen(body: Json): Promise<Json> {
  const r = await stack.post("/web/v1/scrape", { ...reading(), ...body });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.success, true, JSON.stringify(r.body.errors));
  return seenIn(r.body.data);
}

const pixel7 = devices["Pixel 7"];

describe("places and devices", () => {
  test("without them the page is the worker's desktop: US English, UTC, no position, 1280 wide", async () => {
    const seen = await scrapeSeen({});
    assert.equal(seen.language, "en-US");
    assert.equal(seen.timeZone, "UTC");
    assert.equal(seen.offset, 0);
    assert.equal(seen.coarse, false);
    assert.equal(seen.innerWidth, 1280);
    assert.equal(seen.devicePixelRatio, 1);
    assert.ok(seen.position.error, "no geolocation without a location");
  });

  test("REST scrape: a country and a device tell the page one consistent story", async () => {
    const seen = await scrapeSeen({ location: { country: "JP" }, device: "mobile" });
    assert.equal(seen.acceptLanguage, "ja-JP,ja;q=0.9");
    assert.equal(seen.language, "ja-JP");
    assert.deepEqual(seen.languages, ["ja-JP", "ja"]);
    assert.equal(seen.locale, "ja-JP");
    assert.equal(seen.timeZone, "Asia/Tokyo");
    assert.equal(seen.offset, -540);
    assert.deepEqual(seen.position, { latitude: 35.68, longitude: 139.65, accuracy: 10_000 });
    // mobile is Playwright's Pixel 7.
    assert.equal(seen.userAgent, pixel7?.userAgent);
    assert.equal(seen.coarse, true);
    assert.equal(seen.innerWidth, pixel7?.viewport.width);
    assert.equal(seen.screenWidth, 412);
    assert.equal(seen.devicePixelRatio, pixel7?.deviceScaleFactor);
    assert.ok(seen.maxTouchPoints > 0);
    assert.equal(seen.mobile, true);
  });

  test("REST scrape: given languages and zone win over the country's; the caller's viewport and user agent over the device's", async () => {
    const seen = await scrapeSeen({
      location: { country: "DE", languages: ["en-GB", "en", "de"], timezone: "Asia/Kolkata" },
      device: "iPhone 15",
      viewport: { width: 800, height: 600 },
      request: { userAgent: "PlacesTest/1.0" },
    });
    assert.equal(seen.acceptLanguage, "en-GB,en;q=0.9,de;q=0.8");
    assert.deepEqual(seen.languages, ["en-GB", "en", "de"]);
    assert.equal(seen.offset, -330);
    assert.deepEqual(seen.position, { latitude: 52.52, longitude: 13.4, accuracy: 10_000 });
    assert.equal(seen.userAgent, "PlacesTest/1.0");
    assert.equal(seen.innerWidth, 800);
    assert.equal(seen.devicePixelRatio, 1);
    assert.equal(seen.coarse, true, "still a touch screen");
  });

  test("a document fetched without the browser is asked for in the location's languages too", async () => {
    const r = await stack.post("/web/v1/scrape", {
      url: `${stack.site.url}/places/prices.csv`,
      location: { country: "DE" },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.metadata.document?.type, "csv", JSON.stringify(r.body.metadata));
    assert.match(r.body.data.markdown, /de-DE,de;q=0\.9/);
  });

  test("the render cache keeps renders of different places apart", async () => {
    const cached = async (location: Json) => {
      const r = await stack.post("/web/v1/scrape", {
        ...reading("/places?cache=1"),
        location,
        maxAge: 600_000,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return { seen: seenIn(r.body.data), cached: r.body.metadata.cached ?? [] };
    };
    const de = await cached({ country: "DE" });
    assert.equal(de.seen.timeZone, "Europe/Berlin");
    const jp = await cached({ country: "JP" });
    assert.deepEqual(jp.cached, [], "Japan is not served Germany's render");
    assert.equal(jp.seen.timeZone, "Asia/Tokyo");
    const again = await waitFor(
      "Germany's render to be cached",
      async () => {
        const r = await cached({ country: "DE", languages: ["de-DE", "de"] });
        return r.cached.length > 0 ? r : undefined;
      },
      15_000,
      200,
    );
    assert.equal(again.seen.timeZone, "Europe/Berlin", "the country's defaults spelled out share its key");
  });

  test("a session keeps its place and device through its acts", async () => {
    const opened = await stack.post("/web/v1/session", {
      ...reading(),
      location: { country: "BR" },
      device: "tablet",
    });
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    try {
      const seen = seenIn(opened.body.data);
      assert.equal(seen.acceptLanguage, "pt-BR,pt;q=0.9");
      assert.equal(seen.timeZone, "America/Sao_Paulo");
      assert.deepEqual(seen.position, { latitude: -15.79, longitude: -47.88, accuracy: 10_000 });
      assert.equal(seen.userAgent, devices["Galaxy Tab S9"]?.userAgent);
      assert.equal(seen.innerWidth, devices["Galaxy Tab S9"]?.viewport.width);

      const acted = await stack.post("/web/v1/act", {
        sessionId: opened.body.sessionId,
        actions: [
          { navigate: { url: `${stack.site.url}/places?again=1` } },
          { wait: { selector: "#seen[data-done]" } },
        ],
        formats: ["elements"],
      });
      assert.equal(acted.status, 200, JSON.stringify(acted.body));
      assert.equal(acted.body.success, true, JSON.stringify(acted.body.actions));
      const after = seenIn(acted.body.data);
      assert.equal(after.acceptLanguage, "pt-BR,pt;q=0.9", "a navigation the session made sends it too");
      assert.equal(after.language, "pt-BR");
      assert.equal(after.coarse, true);
    } finally {
      await stack.call("DELETE", `/web/v1/session/${opened.body.sessionId}`);
    }
  });

  test("a batch's pages all get the batch's place and device", async () => {
    const start = await stack.post("/web/v1/scrape/batch", {
      ...reading(),
      url: undefined,
      urls: [`${stack.site.url}/places?p=1`, `${stack.site.url}/places?p=2`],
      location: { country: "FR" },
      device: "Pixel 7",
    });
    assert.equal(start.status, 200, JSON.stringify(start.body));
    const done = await waitFor(
      "the batch to end",
      async () => {
        const r = await stack.call("GET", `${start.body.url}?limit=10`);
        return ["queued", "running"].includes(r.body.status) ? undefined : r.body;
      },
      90_000,
      100,
    );
    assert.equal(done.status, "completed", JSON.stringify(done));
    assert.equal(done.data.length, 2);
    for (const page of done.data) {
      const seen = seenIn(page.data);
      assert.equal(seen.acceptLanguage, "fr-FR,fr;q=0.9", page.url);
      assert.equal(seen.timeZone, "Europe/Paris", page.url);
      assert.equal(seen.userAgent, pixel7?.userAgent, page.url);
    }
  });

  test("MCP web_scrape takes them too, and its errors name the field", async () => {
    const client = await connectMcp(stack.api.url, { authorization: `Bearer ${stack.key}` });
    try {
      const listed = await client.listTools();
      const scrapeTool = listed.tools.find((t) => t.name === "web_scrape");
      const props = scrapeTool?.inputSchema.properties as Record<string, Json>;
      assert.ok(props.location?.properties?.country, "location is in the tool's input schema");
      assert.match(props.device?.description ?? "", /Pixel 7/);

      const r = await callTool(client, "web_scrape", {
        ...reading(),
        location: { country: "GB" },
        device: "desktop",
      });
      assert.equal(r.isError, false, JSON.stringify(r.body));
      const seen = seenIn(r.body.data);
      assert.equal(seen.acceptLanguage, "en-GB,en;q=0.9");
      assert.equal(seen.timeZone, "Europe/London");
      assert.deepEqual(seen.position, { latitude: 51.51, longitude: -0.13, accuracy: 10_000 });
      assert.equal(seen.innerWidth, 1280);
      assert.equal(seen.coarse, false);

      const bad = await callTool(client, "web_scrape", { ...reading(), device: "Pixel 77" });
      assert.equal(bad.isError, true);
      assert.equal(bad.body.error.code, "invalid_request");
      assert.equal(bad.body.error.details[0].field, "device");
      assert.match(bad.body.error.details[0].message, /unknown device "Pixel 77"/);
    } finally {
      await client.close();
    }
  });

  test("400s name the field: an unknown country, a zone that is none, a device that is none", async () => {
    const refused = async (body: Json, field: string, message: RegExp) => {
      const r = await stack.post("/web/v1/scrape", { ...reading(), ...body });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.error.code, "invalid_request");
      assert.equal(r.body.error.details[0].field, field, JSON.stringify(r.body.error));
      assert.match(r.body.error.message, message);
      return r.body;
    };
    await refused(
      { location: { country: "XX" } },
      "location.country",
      /unknown country XX: the known ones are/,
    );
    await refused({ location: { country: "germany" } }, "location.country", /ISO 3166-1 alpha-2/);
    await refused({ location: { timezone: "Mars/Olympus" } }, "location.timezone", /not a time zone/);
    await refused({ location: { timezone: "europe/berlin" } }, "location.timezone", /IANA name/);
    await refused({ device: "Nokia 3310" }, "device", /unknown device "Nokia 3310".*"iPhone 15", "Pixel 7"/);
    await refused(
      { location: { country: "DE" }, request: { headers: { "accept-language": "en" } } },
      "request.headers.accept-language",
      /give the languages there/,
    );
    // The same rules on the other routes.
    const session = await stack.post("/web/v1/session", { ...reading(), device: "toaster" });
    assert.equal(session.status, 400);
    assert.equal(session.body.error.details[0].field, "device");
    const crawl = await stack.post("/web/v1/crawl", { url: stack.site.url, location: { country: "ZZ" } });
    assert.equal(crawl.status, 400);
    assert.equal(crawl.body.error.details[0].field, "location.country");
  });
});
