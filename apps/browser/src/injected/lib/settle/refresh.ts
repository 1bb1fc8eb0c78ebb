import { now } from "./book.ts";

/**
 * When a meta refresh to another page is due, on the page's clock (-1: none). It is pending work:
 * Chromium follows it itself.
 */
export function refreshDue(): number {
  const meta = document.querySelector('meta[http-equiv="refresh" i]');
  if (!meta) return -1;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:[;,]\s*(?:url\s*=\s*)?['"]?([^'"]*)['"]?)?\s*$/i.exec(
    meta.getAttribute("content") || "",
  );
  if (!m?.[2]) return -1;
  try {
    if (new URL(m[2], location.href).href === location.href) return -1;
  } catch {
    return -1;
  }
  const loaded = performance.timing?.loadEventEnd
    ? performance.timing.loadEventEnd - performance.timeOrigin
    : now();
  return Math.max(loaded, 0) + Number(m[1]) * 1000;
}
