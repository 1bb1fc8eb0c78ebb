/**
 * What tests of the pages for people (the live view, the console) share: a Chromium of their own to open
 * the pages in, as a person's browser would, and axe-core's check of what a person with assistive
 * technology meets there.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { findChromium } from "@browserfleet/browser";
import { type Browser, chromium, type Page } from "playwright-core";

export function launchPeoplesBrowser(): Promise<Browser> {
  const executablePath = findChromium();
  return chromium.launch({ ...(executablePath ? { executablePath } : {}), args: ["--no-sandbox"] });
}

let axeSource: Promise<string> | undefined;

/** axe-core's serious and critical violations on the page as it is now ("id: help (nodes)"). */
export async function seriousViolations(page: Page): Promise<string[]> {
  axeSource ??= readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(await axeSource);
  const result = (await page.evaluate(() =>
    (window as unknown as { axe: { run(): Promise<unknown> } }).axe.run(),
  )) as { violations: Array<{ id: string; help: string; impact: string; nodes: unknown[] }> };
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.help} (${v.nodes.length})`);
}
