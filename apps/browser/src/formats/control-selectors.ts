import type { Page } from "playwright-core";
import controlSelectorEngine from "../injected/generated/control-selector-engine.ts";
import cssPathOf from "../injected/generated/css-path.ts";
import { registerSelectorEngine } from "../page/selector-engine.ts";
import type { PageState } from "../page/settle.ts";
import { CONTROL_ROLES } from "./controls-tree.ts";

/**
 * CSS selectors for the controls of an AI snapshot, all in one call into the page instead of one
 * `aria-ref=` round trip per control.
 *
 * Playwright keeps the refs of its latest AI snapshot inside its isolated (utility) world: each element
 * it gave a ref carries `_ariaRef` there, invisible to `page.evaluate`. A selector engine registered with
 * `contentScript: true` runs in that same world, so it can find every wanted element at once, and it
 * hands the selectors back as the text of a detached element (`locator.textContent()` answers from that
 * world too). Nothing is added to the page's document.
 *
 * What it cannot answer (a ref inside a frame, or a Playwright that stops marking elements this way) is
 * looked up one ref at a time, as before: slower, never wrong.
 */
const ENGINE = "bf-control-selectors";

/** The engine itself, its query syntax and answer: injected/entries/control-selector-engine.ts. */
const engineReady = registerSelectorEngine(ENGINE, controlSelectorEngine);

/** A ref of a frame's element (`f1e3`) is in another document; the engine reads the main frame only. */
const inMainFrame = (ref: string) => /^e\d+$/.test(ref);

/** What one pass of the engine read: the selectors (ref → selector), the title, the settle state. */
export interface PagePass {
  selectors: Map<string, string>;
  /** Undefined when the pass could not run. */
  title?: string;
  /** Only when asked for, and the page has the settle bookkeeping. */
  state?: PageState;
}

/** One engine query; what it answered (no selectors when it could not answer). */
async function ask(page: Page, body: string): Promise<PagePass> {
  const pass: PagePass = { selectors: new Map() };
  if (!(await engineReady())) return pass;
  const text = await page
    .locator(`${ENGINE}=${body}`)
    .textContent({ timeout: 2000 })
    .catch(() => null);
  if (!text) return pass;
  try {
    const answer = JSON.parse(text) as {
      selectors?: Record<string, unknown>;
      title?: unknown;
      state?: unknown;
    };
    for (const [ref, selector] of Object.entries(answer.selectors ?? {}))
      if (typeof selector === "string" && selector) pass.selectors.set(ref, selector);
    if (typeof answer.title === "string") pass.title = answer.title;
    if (answer.state && typeof answer.state === "object") pass.state = answer.state as PageState;
  } catch {}
  return pass;
}

/** The selectors of these refs from the page's latest AI snapshot; a ref missing here was not found. */
export async function selectorsInOnePass(page: Page, refs: string[]): Promise<Map<string, string>> {
  const asked = refs.filter(inMainFrame);
  return asked.length ? (await ask(page, asked.join(","))).selectors : new Map();
}

/**
 * The selectors of every control (by role, at most `max`), asked right behind the AI snapshot that gives
 * them their refs instead of after its answer: one round trip less. Should the page run it before the
 * snapshot, it reads the refs of the snapshot before, and that is never wrong, only short: a document
 * never gives a ref to a second element, and an element whose role or name changed gets a new ref, so
 * a ref read early either names the same element the new snapshot does or is not in the new snapshot
 * at all. What it leaves out, `addSelectors` looks up after.
 */
export function controlSelectorsBeside(page: Page, max: number): Promise<Map<string, string>> {
  return pageBeside(page, max).then((pass) => pass.selectors);
}

/**
 * The same pass, answering the page's title as well, and with `youngMs` its settle state (see
 * page/settle.ts `youngFor`) read right after the snapshot in front of it: one round trip for all three.
 */
export function pageBeside(page: Page, max: number, youngMs?: number): Promise<PagePass> {
  const young = youngMs === undefined ? "" : `:${Math.max(0, Math.round(youngMs))}`;
  return ask(page, `roles:${Math.max(1, Math.floor(max))}:${[...CONTROL_ROLES].join(",")}${young}`).catch(
    () => ({ selectors: new Map<string, string>() }),
  );
}

/**
 * Sets `selector` on each control: from the pass asked beside the snapshot (`early`), then one pass for
 * the controls it left out, then one call per control still missing (a frame's).
 */
export async function addSelectors(
  page: Page,
  controls: Array<{ ref: string; selector?: string }>,
  early?: Promise<Map<string, string>>,
) {
  const first = (await early) ?? new Map<string, string>();
  const missing = controls.map((c) => c.ref).filter((ref) => !first.has(ref));
  const found = missing.length ? await selectorsInOnePass(page, missing) : new Map<string, string>();
  await Promise.all(
    controls.map(async (c) => {
      c.selector =
        first.get(c.ref) ??
        found.get(c.ref) ??
        (await page
          .locator(`aria-ref=${c.ref}`)
          .evaluate(cssPathOf, undefined, { timeout: 2000 })
          .catch(() => undefined));
    }),
  );
}
