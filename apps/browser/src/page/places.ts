/**
 * A request's location and device as Playwright context options. Both are fixed when a context is made, so
 * a request with either never takes a pre-made default context (fitsDefaultContext compares these too).
 */
import {
  deviceName,
  type Location,
  type PageMetadata,
  placeOf,
  type ScrapeRequest,
} from "@browserfleet/contracts";
import { type BrowserContextOptions, devices } from "playwright-core";

/**
 * locale, timezoneId, geolocation and its permission. The locale is the languages joined with commas:
 * Playwright hands it to Chromium as the Accept-Language list (the header, with falling weights, and
 * navigator.languages, in every frame and worker), and our patch of playwright-core
 * (patches/playwright-core+*.patch) gives ICU its first tag, for Intl and navigator.language.
 */
export function placeOptions(loc: Location | undefined): BrowserContextOptions {
  const place = placeOf(loc);
  if (!place) return {};
  return {
    ...(place.languages ? { locale: place.languages.join(",") } : {}),
    ...(place.timezone ? { timezoneId: place.timezone } : {}),
    ...(place.geolocation ? { geolocation: place.geolocation, permissions: ["geolocation"] } : {}),
  };
}

/** The device a request names, as Playwright describes it; undefined for desktop or none. */
export function deviceDescriptor(req: ScrapeRequest): (typeof devices)[string] | undefined {
  const name = deviceName(req.device);
  if (name === undefined) return undefined;
  const descriptor = devices[name];
  // The contracts list the registry's names (a test keeps them equal); a worker of another Playwright may lack one.
  if (!descriptor) throw new Error(`this worker's Playwright has no device named "${name}"`);
  return descriptor;
}

/**
 * Viewport, scale, user agent, touch and mobile layout: the device's, with the caller's viewport (as a whole:
 * size and scale) and user agent winning; without a device, the worker's desktop default (1280x720, scale 1).
 */
export function deviceOptions(req: ScrapeRequest): BrowserContextOptions {
  const vp = req.viewport;
  const d = deviceDescriptor(req);
  const options: BrowserContextOptions = {
    viewport: vp
      ? { width: vp.width, height: vp.height }
      : d
        ? { ...d.viewport }
        : { width: 1280, height: 720 },
    deviceScaleFactor: vp ? vp.deviceScaleFactor : (d?.deviceScaleFactor ?? 1),
    userAgent: req.request?.userAgent ?? d?.userAgent,
  };
  if (d) {
    options.isMobile = d.isMobile;
    options.hasTouch = d.hasTouch;
    // The screen a page reads (screen.width): the device's, unless the caller's viewport replaced its own.
    // Playwright's registry has it for most devices, though its DeviceDescriptor type does not say so.
    const screen = (d as { screen?: { width: number; height: number } }).screen;
    if (!vp && screen) options.screen = { ...screen };
  }
  return options;
}

/** What a render was told of where and what it is, and the way it went out (metadata.seenAs). */
export function seenAsOf(
  req: ScrapeRequest,
  way: { way: "direct" | "pool" | "own"; pool?: string },
): PageMetadata["seenAs"] {
  const place = placeOf(req.location);
  const device = deviceName(req.device);
  const proxy = way.way === "pool" ? `pool:${way.pool}` : way.way === "own" ? "own" : "none";
  if (!place && !device && req.proxy === undefined && way.way === "direct") return undefined;
  return { ...place, ...(device ? { device } : {}), proxy };
}

/** A reply with metadata.seenAs set, when the render was told anything (see seenAsOf). */
export function withSeenAs<R extends { ok: boolean; result?: { metadata: PageMetadata } }>(
  reply: R,
  req: ScrapeRequest,
  way: { way: "direct" | "pool" | "own"; pool?: string },
): R {
  const seenAs = seenAsOf(req, way);
  if (reply.ok && reply.result && seenAs) reply.result.metadata.seenAs = seenAs;
  return reply;
}
