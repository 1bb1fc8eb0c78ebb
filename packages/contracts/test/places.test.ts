import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  batchRequest,
  COUNTRIES,
  COUNTRY_CODES,
  DEVICE_KINDS,
  detailsFromZod,
  device,
  deviceName,
  devicesLike,
  GEOLOCATION_ACCURACY_M,
  location,
  PLAYWRIGHT_DEVICE_NAMES,
  placeOf,
  scrapeRequest,
  sessionRequest,
  timeZoneProblem,
} from "../src/index.ts";

/** Where a request is refused, and why: the field as the api's 400 names it, and the message. */
function refusal(schema: { safeParse(v: unknown): { success: boolean; error?: unknown } }, body: unknown) {
  const r = schema.safeParse(body);
  assert.equal(r.success, false, `refused: ${JSON.stringify(body)}`);
  return detailsFromZod(r.error as never).map((d) => ({ field: d.field, message: d.message }));
}
const scrape = (extra: Record<string, unknown>) => ({ url: "https://example.com/", ...extra });

/** The region's zones as ICU's CLDR data lists them (Node 20 has the getter, later ones the method). */
function zonesOf(code: string): string[] {
  const l = new Intl.Locale(`und-${code}`) as Intl.Locale & {
    timeZones?: string[];
    getTimeZones?(): string[];
  };
  return l.getTimeZones?.() ?? l.timeZones ?? [];
}
/** ICU's own name of a zone (Asia/Kolkata is Asia/Calcutta there), so that aliases compare equal. */
const icuName = (zone: string) =>
  new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
/** The zone's offset from UTC in hours at `when`. */
function offsetHours(zone: string, when: Date): number {
  const part = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" })
    .formatToParts(when)
    .find((p) => p.type === "timeZoneName")?.value;
  const m = /GMT(?:([+-])(\d{2}):(\d{2}))?/.exec(part ?? "");
  if (!m?.[1]) return 0;
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) + Number(m[3]) / 60);
}

describe("the country table", () => {
  it("has at least the 40 most common countries, each an ISO code with an English name and capital", () => {
    assert.ok(COUNTRY_CODES.length >= 40, `${COUNTRY_CODES.length} countries`);
    for (const code of [
      "US",
      "GB",
      "DE",
      "FR",
      "JP",
      "CN",
      "IN",
      "BR",
      "RU",
      "CA",
      "AU",
      "ES",
      "IT",
      "MX",
      "KR",
    ])
      assert.ok(COUNTRIES[code], code);
    for (const [code, c] of Object.entries(COUNTRIES)) {
      assert.match(code, /^[A-Z]{2}$/);
      assert.equal(c.code, code);
      assert.ok(c.name && c.capital, code);
      // The region is one ICU knows by that code (an unknown one displays as the code itself).
      assert.notEqual(new Intl.DisplayNames(["en"], { type: "region" }).of(code), code, code);
    }
  });

  it("lists each country's language as CLDR's likely subtags give it (English where the table says why)", () => {
    const english = new Set(["IN", "KE", "PH", "PK"]);
    for (const [code, c] of Object.entries(COUNTRIES)) {
      const [first, second] = c.languages;
      const lang = second as string;
      assert.equal(first, `${lang}-${code}`, code);
      const likely = new Intl.Locale(`und-${code}`).maximize().language;
      assert.equal(lang, english.has(code) ? "en" : likely, `${code}: CLDR says ${likely}`);
      for (const tag of c.languages) assert.deepEqual(Intl.getCanonicalLocales(tag), [tag], tag);
    }
    assert.deepEqual(COUNTRIES.NO?.languages, ["nb-NO", "nb", "no"]);
  });

  it("gives each country a valid zone of its own (as CLDR lists a region's zones)", () => {
    for (const [code, c] of Object.entries(COUNTRIES)) {
      assert.equal(timeZoneProblem(c.timezone), undefined, `${code}: ${c.timezone}`);
      assert.ok(zonesOf(code).map(icuName).includes(icuName(c.timezone)), `${code}: ${c.timezone}`);
    }
  });

  it("puts each capital where its zone says: longitude near the zone's offset, hemisphere by its summer", () => {
    const january = new Date(Date.UTC(2025, 0, 15));
    const july = new Date(Date.UTC(2025, 6, 15));
    for (const [code, c] of Object.entries(COUNTRIES)) {
      assert.ok(Math.abs(c.latitude) <= 90 && Math.abs(c.longitude) <= 180, code);
      const jan = offsetHours(c.timezone, january);
      const jul = offsetHours(c.timezone, july);
      const standard = Math.min(jan, jul);
      // Zones follow borders, not meridians: Spain keeps Berlin's time, China one zone, but none is 3 h off.
      assert.ok(Math.abs(c.longitude / 15 - standard) <= 3, `${code}: ${c.longitude} against UTC${standard}`);
      // A zone with summer time in January is south of the equator, one with it in July north.
      if (jan > jul) assert.ok(c.latitude < 0, `${code}: summer in January, yet latitude ${c.latitude}`);
      if (jul > jan) assert.ok(c.latitude > 0, `${code}: summer in July, yet latitude ${c.latitude}`);
    }
  });
});

describe("a location", () => {
  it("comes to the country's languages, zone and capital, each replaced by what is given", () => {
    assert.deepEqual(placeOf({ country: "DE" }), {
      languages: ["de-DE", "de"],
      timezone: "Europe/Berlin",
      geolocation: { latitude: 52.52, longitude: 13.4, accuracy: GEOLOCATION_ACCURACY_M },
    });
    assert.deepEqual(placeOf({ country: "JP" })?.languages, ["ja-JP", "ja"]);
    assert.equal(placeOf({ country: "US" })?.timezone, "America/New_York");
    assert.deepEqual(placeOf({ country: "DE", languages: ["en-GB"], timezone: "Asia/Tokyo" }), {
      languages: ["en-GB"],
      timezone: "Asia/Tokyo",
      geolocation: { latitude: 52.52, longitude: 13.4, accuracy: GEOLOCATION_ACCURACY_M },
    });
    // Without a country: only what is given, and no position.
    assert.deepEqual(placeOf({ timezone: "Asia/Kolkata" }), { timezone: "Asia/Kolkata" });
    assert.deepEqual(placeOf({ languages: ["fr-CA", "fr"] }), { languages: ["fr-CA", "fr"] });
    assert.deepEqual(placeOf({ country: "QA", languages: ["ar-QA"], timezone: "Asia/Qatar" }), {
      languages: ["ar-QA"],
      timezone: "Asia/Qatar",
    });
    assert.equal(placeOf(undefined), undefined);
  });

  it("is taken on scrape, session, batch and crawl alike", () => {
    const loc = { country: "FR" };
    assert.deepEqual(scrapeRequest.parse(scrape({ location: loc })).location, loc);
    assert.deepEqual(sessionRequest.parse(scrape({ location: loc })).location, loc);
    assert.deepEqual(
      batchRequest.parse({ urls: ["https://a.example/", "https://b.example/"], location: loc }).location,
      loc,
    );
  });

  it("refuses an unknown country without languages and timezone, naming location.country", () => {
    const [r] = refusal(scrapeRequest, scrape({ location: { country: "XX" } }));
    assert.equal(r?.field, "location.country");
    assert.match(
      r?.message ?? "",
      /unknown country XX: the known ones are AE, AR, .*DE.*; another ISO 3166-1/,
    );
    assert.match(refusal(location, { country: "UK" })[0]?.message ?? "", /United Kingdom's code is GB/);
    assert.deepEqual(refusal(location, { country: "XX", languages: ["xx"] })[0]?.field, "country");
    assert.equal(
      location.safeParse({ country: "QA", languages: ["ar-QA"], timezone: "Asia/Qatar" }).success,
      true,
    );
    assert.match(
      refusal(location, { country: "de" })[0]?.message ?? "",
      /ISO 3166-1 alpha-2 code in capitals/,
    );
    assert.match(refusal(location, {})[0]?.message ?? "", /at least one of country, languages or timezone/);
    assert.deepEqual(refusal(location, { country: "DE", city: "Bonn" })[0]?.field, "city");
  });

  it("takes IANA zones, aliases too, and refuses others naming location.timezone", () => {
    for (const zone of [
      "Europe/Berlin",
      "UTC",
      "Etc/GMT+5",
      "Asia/Kolkata",
      "Europe/Kyiv",
      "America/Argentina/Buenos_Aires",
    ])
      assert.equal(location.safeParse({ timezone: zone }).success, true, zone);
    const [bad] = refusal(scrapeRequest, scrape({ location: { country: "DE", timezone: "Mars/Olympus" } }));
    assert.equal(bad?.field, "location.timezone");
    assert.match(bad?.message ?? "", /Mars\/Olympus is not a time zone of the IANA database/);
    assert.match(
      refusal(location, { timezone: "EUROPE/BERLIN" })[0]?.message ?? "",
      /case-sensitive: Europe\/Berlin/,
    );
    assert.match(refusal(location, { timezone: "europe/berlin" })[0]?.message ?? "", /IANA name such as/);
    assert.equal(refusal(location, { timezone: "+01:00" }).length, 1, "one refusal, not one per check");
  });

  it("takes BCP 47 languages of language, script and region, once each", () => {
    for (const tags of [["de"], ["de-DE", "de"], ["zh-Hant-TW"], ["es-419", "es", "en"]])
      assert.equal(location.safeParse({ languages: tags }).success, true, tags.join());
    for (const tags of [["de_DE"], ["de-de"], ["de-DE;q=0.9"], ["de-DE,de"], [], Array(11).fill("de")])
      assert.equal(location.safeParse({ languages: tags }).success, false, JSON.stringify(tags));
    assert.match(refusal(location, { languages: ["de", "de"] })[0]?.message ?? "", /must not repeat/);
  });

  it("is where the languages come from: no Accept-Language header besides one that sets them", () => {
    const [r] = refusal(
      scrapeRequest,
      scrape({ location: { country: "DE" }, request: { headers: { "Accept-Language": "en" } } }),
    );
    assert.equal(r?.field, "request.headers.Accept-Language");
    assert.match(r?.message ?? "", /give the languages there/);
    // A location of a time zone alone leaves the header to the caller.
    const zoneOnly = scrape({
      location: { timezone: "UTC" },
      request: { headers: { "Accept-Language": "en" } },
    });
    assert.equal(scrapeRequest.safeParse(zoneOnly).success, true);
  });
});

describe("a device", () => {
  it("is desktop, mobile, tablet or a name of Playwright's registry", () => {
    for (const d of [
      "desktop",
      "mobile",
      "tablet",
      "iPhone 15",
      "Pixel 7",
      "iPad Pro 11 landscape",
      "Desktop Firefox",
    ])
      assert.equal(scrapeRequest.safeParse(scrape({ device: d })).success, true, d);
    assert.ok(PLAYWRIGHT_DEVICE_NAMES.length > 100);
    for (const name of PLAYWRIGHT_DEVICE_NAMES) assert.equal(device.safeParse(name).success, true, name);
  });

  it("names the device the page gets: mobile and tablet one each, desktop none (the default page)", () => {
    assert.equal(deviceName("mobile"), "Pixel 7");
    assert.equal(deviceName("tablet"), "Galaxy Tab S9");
    assert.equal(deviceName("desktop"), undefined);
    assert.equal(deviceName(undefined), undefined);
    assert.equal(deviceName("iPhone 15"), "iPhone 15");
    for (const named of Object.values(DEVICE_KINDS))
      if (named) assert.ok((PLAYWRIGHT_DEVICE_NAMES as readonly string[]).includes(named), named);
  });

  it("refuses an unknown name naming device, with the names it looks like and a few valid ones", () => {
    const [r] = refusal(scrapeRequest, scrape({ device: "iphone 15" }));
    assert.equal(r?.field, "device");
    assert.match(r?.message ?? "", /unknown device "iphone 15". Did you mean "iPhone 15"\?/);
    assert.match(
      r?.message ?? "",
      /Give desktop, mobile or tablet, or a name of Playwright's device registry/,
    );
    const [toaster] = refusal(scrapeRequest, scrape({ device: "toaster" }));
    assert.doesNotMatch(toaster?.message ?? "", /Did you mean/);
    assert.match(toaster?.message ?? "", /"iPhone 15", "Pixel 7"/);
    // Not a name by way of Object's prototype.
    for (const d of ["toString", "constructor", "__proto__", ""])
      assert.equal(device.safeParse(d).success, false, d);
    assert.deepEqual(devicesLike("pixel7"), ["Pixel 7"]);
    assert.ok(devicesLike("Galaxy Tab").every((n) => n.startsWith("Galaxy") && !n.endsWith("landscape")));
  });
});
