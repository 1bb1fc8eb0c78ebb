/**
 * A page that says where and on what it thinks it runs, for the places-and-devices tests:
 *
 *   /places   JSON in <pre id="seen"> (its data-done attribute is set once complete): the Accept-Language
 *             header the server got, navigator.language(s), the Intl time zone and locale, the Date offset,
 *             a number and a date as the locale writes them, (pointer: coarse), innerWidth, screen.width,
 *             devicePixelRatio, maxTouchPoints, navigator.userAgent and userAgentData.mobile, and
 *             navigator.geolocation's position ({latitude, longitude, accuracy}, or {error}).
 *             A mobile page (meta viewport width=device-width), as a phone lays out others 980 px wide.
 *   /places/prices.csv  a CSV attachment whose second row is the Accept-Language header it was sent
 */
import type { ExtraRoutes } from "./reply.ts";

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export const placesRoutes: ExtraRoutes = (path, _query, _origin, _cookie, headers) => {
  const acceptLanguage = String(headers?.["accept-language"] ?? "");
  // A price list as a CSV download: the languages asked for are in its second row.
  if (path === "/places/prices.csv")
    return {
      status: 200,
      type: "text/csv; charset=utf-8",
      headers: { "Content-Disposition": 'attachment; filename="prices.csv"' },
      body: `item,accept-language\nprices,"${acceptLanguage.replace(/"/g, '""')}"\n`,
    };
  if (path !== "/places") return null;
  return {
    status: 200,
    type: "text/html; charset=utf-8",
    body: `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Where am I</title></head><body>
<h1>Where am I</h1><p id="al" data-value="${escapeHtml(acceptLanguage)}">Accept-Language: ${escapeHtml(acceptLanguage)}</p>
<pre id="seen">…</pre>
<script>
const seen = {
  acceptLanguage: document.getElementById("al").dataset.value,
  language: navigator.language,
  languages: [...navigator.languages],
  timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  locale: Intl.DateTimeFormat().resolvedOptions().locale,
  offset: new Date().getTimezoneOffset(),
  number: (1234567.5).toLocaleString(),
  coarse: matchMedia("(pointer: coarse)").matches,
  innerWidth: innerWidth,
  screenWidth: screen.width,
  devicePixelRatio: devicePixelRatio,
  maxTouchPoints: navigator.maxTouchPoints,
  userAgent: navigator.userAgent,
  mobile: navigator.userAgentData ? navigator.userAgentData.mobile : null,
};
const done = (position) => {
  seen.position = position;
  const out = document.getElementById("seen");
  out.textContent = JSON.stringify(seen);
  out.dataset.done = "1";
};
navigator.geolocation.getCurrentPosition(
  (p) => done({ latitude: p.coords.latitude, longitude: p.coords.longitude, accuracy: p.coords.accuracy }),
  (e) => done({ error: e.message }),
  { timeout: 5000 },
);
</script></body></html>`,
  };
};
