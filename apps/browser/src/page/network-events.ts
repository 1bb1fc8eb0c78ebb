import type { Page } from "playwright-core";

/**
 * Playwright subscribes a page to an event when its first listener is added and unsubscribes when the last
 * one goes, each time an API call with a captured stack trace (source-mapped in our processes) and a protocol
 * message. A task's navigation and settle listen to these four for a moment; a listener kept for the page's
 * life makes theirs free, and a page a job navigates again and again subscribes once.
 */
const kept = new WeakSet<Page>();
const noop = () => {};

export function keepNetworkEvents(page: Page): void {
  if (kept.has(page)) return;
  kept.add(page);
  page.on("request", noop);
  page.on("response", noop);
  page.on("requestfinished", noop);
  page.on("requestfailed", noop);
}
