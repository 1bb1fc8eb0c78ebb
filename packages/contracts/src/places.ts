/**
 * Places and devices: where the browser says it is (its languages, time zone and position) and what it says
 * it is (its viewport, user agent and touch screen). The data and the checks; the browser worker turns them
 * into context options (apps/browser/src/page/places.ts). No proxy: requests still leave from the worker.
 */
import { z } from "zod";
import { PLAYWRIGHT_DEVICE_NAMES } from "./device-names.ts";

export { PLAYWRIGHT_DEVICE_NAMES } from "./device-names.ts";

/** A country the table knows: its languages, main time zone and capital. */
export interface Country {
  code: string;
  name: string;
  capital: string;
  /** The capital's position, to 2 decimals (about 1 km): a place in the country, not anyone's address. */
  latitude: number;
  longitude: number;
  timezone: string;
  /** Most preferred first, as Accept-Language lists them: `ll-CC`, then `ll`. */
  languages: readonly string[];
}

/**
 * The countries `location.country` knows, about the 65 most visited from. Where each column comes from:
 * - language: the country's likely language in Unicode CLDR's likely subtags (what `new Intl.Locale("und-DE")
 *   .maximize()` says, in Node and in Chromium alike), except IN, KE, PH and PK: English, an official
 *   language there and the one most of their web is read in (CLDR says Hindi, Swahili, Filipino, Urdu).
 *   Listed as `ll-CC` then `ll`, as a browser set to that language sends it (NO adds the macrolanguage no).
 * - time zone: the zone of the capital in the IANA tz database (zone1970.tab), which in the countries of
 *   several zones is also that of most people (US: America/New_York, AU: Australia/Sydney).
 * - position: the capital's coordinates as Wikipedia gives them, rounded to 2 decimals.
 * packages/contracts/test/places.test.ts checks each language and zone against the CLDR data of ICU, and
 * each capital's longitude against its zone's offset.
 */
const TABLE: ReadonlyArray<
  readonly [code: string, name: string, capital: string, lat: number, lon: number, zone: string, lang: string]
> = [
  ["AE", "United Arab Emirates", "Abu Dhabi", 24.45, 54.38, "Asia/Dubai", "ar"],
  ["AR", "Argentina", "Buenos Aires", -34.6, -58.38, "America/Argentina/Buenos_Aires", "es"],
  ["AT", "Austria", "Vienna", 48.21, 16.37, "Europe/Vienna", "de"],
  ["AU", "Australia", "Canberra", -35.28, 149.13, "Australia/Sydney", "en"],
  ["BD", "Bangladesh", "Dhaka", 23.81, 90.41, "Asia/Dhaka", "bn"],
  ["BE", "Belgium", "Brussels", 50.85, 4.35, "Europe/Brussels", "nl"],
  ["BG", "Bulgaria", "Sofia", 42.7, 23.32, "Europe/Sofia", "bg"],
  ["BR", "Brazil", "Brasília", -15.79, -47.88, "America/Sao_Paulo", "pt"],
  ["CA", "Canada", "Ottawa", 45.42, -75.7, "America/Toronto", "en"],
  ["CH", "Switzerland", "Bern", 46.95, 7.45, "Europe/Zurich", "de"],
  ["CL", "Chile", "Santiago", -33.45, -70.67, "America/Santiago", "es"],
  ["CN", "China", "Beijing", 39.9, 116.41, "Asia/Shanghai", "zh"],
  ["CO", "Colombia", "Bogotá", 4.71, -74.07, "America/Bogota", "es"],
  ["CZ", "Czechia", "Prague", 50.08, 14.44, "Europe/Prague", "cs"],
  ["DE", "Germany", "Berlin", 52.52, 13.4, "Europe/Berlin", "de"],
  ["DK", "Denmark", "Copenhagen", 55.68, 12.57, "Europe/Copenhagen", "da"],
  ["EE", "Estonia", "Tallinn", 59.44, 24.75, "Europe/Tallinn", "et"],
  ["EG", "Egypt", "Cairo", 30.04, 31.24, "Africa/Cairo", "ar"],
  ["ES", "Spain", "Madrid", 40.42, -3.7, "Europe/Madrid", "es"],
  ["FI", "Finland", "Helsinki", 60.17, 24.94, "Europe/Helsinki", "fi"],
  ["FR", "France", "Paris", 48.86, 2.35, "Europe/Paris", "fr"],
  ["GB", "United Kingdom", "London", 51.51, -0.13, "Europe/London", "en"],
  ["GR", "Greece", "Athens", 37.98, 23.73, "Europe/Athens", "el"],
  ["HK", "Hong Kong", "Hong Kong", 22.32, 114.17, "Asia/Hong_Kong", "zh"],
  ["HR", "Croatia", "Zagreb", 45.82, 15.98, "Europe/Zagreb", "hr"],
  ["HU", "Hungary", "Budapest", 47.5, 19.04, "Europe/Budapest", "hu"],
  ["ID", "Indonesia", "Jakarta", -6.21, 106.85, "Asia/Jakarta", "id"],
  ["IE", "Ireland", "Dublin", 53.35, -6.26, "Europe/Dublin", "en"],
  ["IL", "Israel", "Jerusalem", 31.77, 35.21, "Asia/Jerusalem", "he"],
  ["IN", "India", "New Delhi", 28.61, 77.21, "Asia/Kolkata", "en"],
  ["IS", "Iceland", "Reykjavík", 64.15, -21.94, "Atlantic/Reykjavik", "is"],
  ["IT", "Italy", "Rome", 41.9, 12.5, "Europe/Rome", "it"],
  ["JP", "Japan", "Tokyo", 35.68, 139.65, "Asia/Tokyo", "ja"],
  ["KE", "Kenya", "Nairobi", -1.29, 36.82, "Africa/Nairobi", "en"],
  ["KR", "South Korea", "Seoul", 37.57, 126.98, "Asia/Seoul", "ko"],
  ["LT", "Lithuania", "Vilnius", 54.69, 25.28, "Europe/Vilnius", "lt"],
  ["LV", "Latvia", "Riga", 56.95, 24.11, "Europe/Riga", "lv"],
  ["MA", "Morocco", "Rabat", 34.02, -6.84, "Africa/Casablanca", "ar"],
  ["MX", "Mexico", "Mexico City", 19.43, -99.13, "America/Mexico_City", "es"],
  ["MY", "Malaysia", "Kuala Lumpur", 3.14, 101.69, "Asia/Kuala_Lumpur", "ms"],
  ["NG", "Nigeria", "Abuja", 9.08, 7.4, "Africa/Lagos", "en"],
  ["NL", "Netherlands", "Amsterdam", 52.37, 4.9, "Europe/Amsterdam", "nl"],
  ["NO", "Norway", "Oslo", 59.91, 10.75, "Europe/Oslo", "nb"],
  ["NZ", "New Zealand", "Wellington", -41.29, 174.78, "Pacific/Auckland", "en"],
  ["PE", "Peru", "Lima", -12.05, -77.04, "America/Lima", "es"],
  ["PH", "Philippines", "Manila", 14.6, 120.98, "Asia/Manila", "en"],
  ["PK", "Pakistan", "Islamabad", 33.68, 73.05, "Asia/Karachi", "en"],
  ["PL", "Poland", "Warsaw", 52.23, 21.01, "Europe/Warsaw", "pl"],
  ["PT", "Portugal", "Lisbon", 38.72, -9.14, "Europe/Lisbon", "pt"],
  ["RO", "Romania", "Bucharest", 44.43, 26.1, "Europe/Bucharest", "ro"],
  ["RS", "Serbia", "Belgrade", 44.79, 20.45, "Europe/Belgrade", "sr"],
  ["RU", "Russia", "Moscow", 55.76, 37.62, "Europe/Moscow", "ru"],
  ["SA", "Saudi Arabia", "Riyadh", 24.71, 46.68, "Asia/Riyadh", "ar"],
  ["SE", "Sweden", "Stockholm", 59.33, 18.07, "Europe/Stockholm", "sv"],
  ["SG", "Singapore", "Singapore", 1.35, 103.82, "Asia/Singapore", "en"],
  ["SI", "Slovenia", "Ljubljana", 46.06, 14.51, "Europe/Ljubljana", "sl"],
  ["SK", "Slovakia", "Bratislava", 48.15, 17.11, "Europe/Bratislava", "sk"],
  ["TH", "Thailand", "Bangkok", 13.76, 100.5, "Asia/Bangkok", "th"],
  ["TR", "Türkiye", "Ankara", 39.93, 32.86, "Europe/Istanbul", "tr"],
  ["TW", "Taiwan", "Taipei", 25.03, 121.57, "Asia/Taipei", "zh"],
  ["UA", "Ukraine", "Kyiv", 50.45, 30.52, "Europe/Kyiv", "uk"],
  ["US", "United States", "Washington, D.C.", 38.91, -77.04, "America/New_York", "en"],
  ["VE", "Venezuela", "Caracas", 10.48, -66.9, "America/Caracas", "es"],
  ["VN", "Vietnam", "Hanoi", 21.03, 105.83, "Asia/Ho_Chi_Minh", "vi"],
  ["ZA", "South Africa", "Pretoria", -25.75, 28.23, "Africa/Johannesburg", "en"],
];

/** Languages a browser set to the country's language sends after `ll-CC, ll`. */
const MORE_LANGUAGES: Readonly<Record<string, readonly string[]>> = { NO: ["no"] };

export const COUNTRIES: Readonly<Record<string, Country>> = Object.fromEntries(
  TABLE.map(([code, name, capital, latitude, longitude, timezone, lang]) => [
    code,
    {
      code,
      name,
      capital,
      latitude,
      longitude,
      timezone,
      languages: [`${lang}-${code}`, lang, ...(MORE_LANGUAGES[code] ?? [])],
    },
  ]),
);
export const COUNTRY_CODES = Object.keys(COUNTRIES).sort();

/** How far from the capital a page is told it may be: a city, not a street. */
export const GEOLOCATION_ACCURACY_M = 10_000;

/** At most this many languages: a browser's Accept-Language rarely lists more than a handful. */
export const MAX_LANGUAGES = 10;

/** ISO 3166-1 alpha-2: two capital letters. */
const COUNTRY_CODE = /^[A-Z]{2}$/;
/**
 * A BCP 47 tag of language, script and region in their canonical case (de, de-DE, zh-Hant-TW, es-419): every
 * string of this shape is one Chromium takes as its locale and Accept-Language.
 */
const LANGUAGE_TAG = /^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?$/;
/** The shape of an IANA time zone name: parts each starting with a capital (Europe/Berlin, Etc/GMT+5, UTC). */
const TIME_ZONE_SHAPE = /^[A-Z][A-Za-z0-9_+-]*(\/[A-Z][A-Za-z0-9_+-]*)*$/;

const ZONES = new Set(Intl.supportedValuesOf("timeZone"));
const ZONES_BY_LOWER = new Map([...ZONES].map((z) => [z.toLowerCase(), z]));

/**
 * Why `zone` is not a time zone Chromium takes, or undefined when it is: one of Intl.supportedValuesOf
 * ("timeZone"), or another name of the IANA database that ICU knows (Asia/Kolkata, Europe/Kyiv and UTC are
 * aliases there). ICU reads names case-insensitively but Chromium does not, so a name in other capitals is
 * refused with the right spelling.
 */
export function timeZoneProblem(zone: string): string | undefined {
  if (ZONES.has(zone)) return undefined;
  const spelled = ZONES_BY_LOWER.get(zone.toLowerCase());
  if (spelled) return `time zone names are case-sensitive: ${spelled}`;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return undefined;
  } catch {
    return `${zone} is not a time zone of the IANA database: give one such as Europe/Berlin, America/New_York or Asia/Tokyo`;
  }
}

export const timeZone = z
  .string()
  .max(64, { abort: true })
  .regex(TIME_ZONE_SHAPE, {
    message: "a time zone is an IANA name such as Europe/Berlin, America/New_York or UTC",
    abort: true,
  })
  .superRefine((zone, ctx) => {
    const problem = timeZoneProblem(zone);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

export const languageTag = z
  .string()
  .max(16)
  .regex(
    LANGUAGE_TAG,
    "a language is a BCP 47 tag of language, script and region in their usual case, such as de, de-DE, zh-Hant-TW or es-419",
  );

/** Why a country with no languages or timezone given is refused; `code` has the right shape. */
function unknownCountry(code: string): string {
  const hint = code === "UK" ? " (the United Kingdom's code is GB)" : "";
  return `unknown country ${code}${hint}: the known ones are ${COUNTRY_CODES.join(", ")}; another ISO 3166-1 alpha-2 code needs location.languages and location.timezone given as well (and sets no geolocation)`;
}

export const location = z
  .strictObject({
    country: z
      .string()
      .regex(COUNTRY_CODE, "a country is an ISO 3166-1 alpha-2 code in capitals, such as DE, US or JP")
      .optional()
      .describe(
        `ISO 3166-1 alpha-2 code in capitals (DE, US, JP). It gives languages and timezone their defaults, and puts navigator.geolocation at its capital, approximately (accuracy ${GEOLOCATION_ACCURACY_M / 1000} km, permission granted). Known: ${COUNTRY_CODES.join(", ")}. Another code needs languages and timezone given, and sets no geolocation`,
      ),
    languages: z
      .array(languageTag)
      .min(1)
      .max(MAX_LANGUAGES)
      .meta({ uniqueItems: true })
      .optional()
      .describe(
        "BCP 47 tags, most preferred first (de-DE, zh-Hant-TW, es-419). The Accept-Language header lists them with falling weights (de-DE,de;q=0.9), navigator.languages is them, and navigator.language, Intl and toLocaleString take the first. Default: the country's language as ll-CC then ll (DE: de-DE, de)",
      ),
    timezone: timeZone
      .optional()
      .describe(
        "IANA time zone (Europe/Berlin, America/New_York, Asia/Tokyo) for Date and Intl (getTimezoneOffset, Intl.DateTimeFormat().resolvedOptions().timeZone). Default: the country's main zone, its capital's (US: America/New_York, AU: Australia/Sydney); without a country, the browser's (UTC)",
      ),
  })
  .superRefine((v, ctx) => {
    if (v.country === undefined && v.languages === undefined && v.timezone === undefined) {
      ctx.addIssue({ code: "custom", message: "give at least one of country, languages or timezone" });
    }
    if (new Set(v.languages).size !== (v.languages?.length ?? 0)) {
      ctx.addIssue({ code: "custom", path: ["languages"], message: "languages must not repeat" });
    }
    if (
      v.country !== undefined &&
      COUNTRY_CODE.test(v.country) &&
      COUNTRIES[v.country] === undefined &&
      (v.languages === undefined || v.timezone === undefined)
    ) {
      ctx.addIssue({ code: "custom", path: ["country"], message: unknownCountry(v.country) });
    }
  })
  .meta({
    minProperties: 1,
    // The rule above, as the published schema says it: a country outside the table needs both.
    if: { required: ["country"], properties: { country: { not: { enum: COUNTRY_CODES } } } },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then
    then: { required: ["languages", "timezone"] },
  })
  .describe(
    "Where the browser says it is, all of a piece: the Accept-Language header and navigator.language(s) from languages, the time zone of Date and Intl from timezone, and navigator.geolocation at the country's capital. The network address the pages see is the proxy's (see proxy: auto takes the egress pool of this country when the deployment has one), else this service's own",
  );
export type Location = z.infer<typeof location>;

/** What a location comes to in the browser. */
export interface Place {
  languages?: string[];
  timezone?: string;
  geolocation?: { latitude: number; longitude: number; accuracy: number };
}

/** A valid location's languages, time zone and geolocation, its country's defaults filled in. */
export function placeOf(loc: Location | undefined): Place | undefined {
  if (loc === undefined) return undefined;
  const country = loc.country === undefined ? undefined : COUNTRIES[loc.country];
  const languages = loc.languages ?? country?.languages;
  const timezone = loc.timezone ?? country?.timezone;
  return {
    ...(languages ? { languages: [...languages] } : {}),
    ...(timezone ? { timezone } : {}),
    ...(country
      ? {
          geolocation: {
            latitude: country.latitude,
            longitude: country.longitude,
            accuracy: GEOLOCATION_ACCURACY_M,
          },
        }
      : {}),
  };
}

/** The named devices `device: "mobile"` and `"tablet"` stand for; `"desktop"` is the worker's default page. */
export const DEVICE_KINDS = { desktop: undefined, mobile: "Pixel 7", tablet: "Galaxy Tab S9" } as const;
export type DeviceKind = keyof typeof DEVICE_KINDS;
const DEVICE_NAMES: ReadonlySet<string> = new Set(PLAYWRIGHT_DEVICE_NAMES);
const isDeviceKind = (value: string): value is DeviceKind => Object.hasOwn(DEVICE_KINDS, value);

/** Device names that look like `given`: the same but for case and spaces, else those sharing its words. */
export function devicesLike(given: string, most = 5): string[] {
  const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9+]/g, "");
  const same = PLAYWRIGHT_DEVICE_NAMES.filter((n) => squash(n) === squash(given));
  if (same.length > 0) return same;
  const words: string[] = given.toLowerCase().match(/[a-z]+|[0-9]+/g) ?? [];
  const landscape = words.includes("landscape");
  return PLAYWRIGHT_DEVICE_NAMES.filter((n) => landscape || !n.endsWith(" landscape"))
    .map((n) => {
      const own: string[] = n.toLowerCase().match(/[a-z]+|[0-9]+/g) ?? [];
      return { n, score: words.filter((w) => own.includes(w)).length };
    })
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, most)
    .map((c) => c.n);
}

/** What a device name is made of: letters, digits, spaces and ( ) + . - (Playwright's names are). */
const DEVICE_NAME_SHAPE = /^[A-Za-z0-9][A-Za-z0-9 ()+.-]*$/;

export const device = z
  .string()
  .min(1, { abort: true })
  .max(64, { abort: true })
  .regex(DEVICE_NAME_SHAPE, {
    message:
      'a device is desktop, mobile, tablet or a device name such as "iPhone 15" (letters, digits, spaces and ( ) + . -)',
    abort: true,
  })
  .superRefine((name, ctx) => {
    if (isDeviceKind(name) || DEVICE_NAMES.has(name)) return;
    const like = devicesLike(name);
    const guess = like.length > 0 ? ` Did you mean ${like.map((n) => `"${n}"`).join(", ")}?` : "";
    ctx.addIssue({
      code: "custom",
      message: `unknown device "${name}".${guess} Give desktop, mobile or tablet, or a name of Playwright's device registry (case-sensitive), such as "iPhone 15", "Pixel 7", "Galaxy S24", "iPad Pro 11" or "Desktop Firefox"`,
    });
  })
  .describe(
    `The device the page sees: its viewport, user agent, touch screen, mobile layout (meta viewport) and devicePixelRatio together. desktop: the default page (1280x720, scale 1, Chromium's own user agent); mobile: Playwright's "${DEVICE_KINDS.mobile}" (412x839, scale 2.625, Chrome on Android); tablet: Playwright's "${DEVICE_KINDS.tablet}" (640x1024, scale 2.5, Chrome on Android); or any name of Playwright's device registry (case-sensitive; ${PLAYWRIGHT_DEVICE_NAMES.length} of them), such as "iPhone 15", "Pixel 7", "Galaxy S24", "iPad Pro 11", "Desktop Firefox", and "iPhone 15 landscape" for a phone or tablet turned. The engine is always Chromium: a Safari or Firefox user agent is only what the page reads. viewport and request.userAgent, when given, win over the device's`,
  );

/** The registry name a valid `device` stands for; undefined for desktop (the default page) or none. */
export function deviceName(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return isDeviceKind(value) ? DEVICE_KINDS[value] : value;
}

/** Accept-Language in any case, as a header name pattern (JSON Schema patterns have no flags). */
const ACCEPT_LANGUAGE_ANY_CASE = `^${"accept-language".replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`)}$`;

type PlaceLike = { location?: Location; request?: { headers?: Record<string, string> } };

/** Languages come from one place: a location that sets them takes no Accept-Language header besides. */
export function checkPlaceRules(v: PlaceLike, ctx: z.RefinementCtx): void {
  if (v.location?.country === undefined && v.location?.languages === undefined) return;
  for (const name of Object.keys(v.request?.headers ?? {}))
    if (name.toLowerCase() === "accept-language")
      ctx.addIssue({
        code: "custom",
        path: ["request", "headers", name],
        message:
          "location sets Accept-Language (from location.languages, or its country's languages): give the languages there, not as a header",
      });
}

/** checkPlaceRules, as the published schema says it. */
export const PLACE_RULES_SCHEMA = {
  if: {
    required: ["location"],
    properties: { location: { anyOf: [{ required: ["country"] }, { required: ["languages"] }] } },
  },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then
  then: {
    properties: {
      request: { properties: { headers: { propertyNames: { not: { pattern: ACCEPT_LANGUAGE_ANY_CASE } } } } },
    },
  },
};
