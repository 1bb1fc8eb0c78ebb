import type { Page } from "playwright-core";
import { selectors } from "playwright-core";
import { cssPathOf } from "./in-page.ts";

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

const ENGINE_SOURCE = `(() => {
  const cssPathOf = ${cssPathOf.toString()};
  const selectorsOf = (root, body) => {
    const wanted = new Set(String(body).split(",").filter(Boolean));
    const out = {};
    let left = wanted.size;
    const stack = [root];
    while (stack.length && left > 0) {
      const node = stack.pop();
      const ref = node && node._ariaRef && node._ariaRef.ref;
      if (ref && wanted.has(ref) && !(ref in out)) {
        try { out[ref] = cssPathOf(node); } catch (e) {}
        left--;
      }
      if (node.shadowRoot) stack.push(node.shadowRoot);
      for (let c = node.lastElementChild; c; c = c.previousElementSibling) stack.push(c);
    }
    const answer = document.createElement("div");
    answer.textContent = JSON.stringify(out);
    return answer;
  };
  return {
    query: (root, body) => selectorsOf(root, body),
    queryAll: (root, body) => [selectorsOf(root, body)],
  };
})()`;

let registered: Promise<boolean> | undefined;

/** Registers the engine once per process; false if this Playwright refuses it. */
function engineReady(): Promise<boolean> {
  registered ??= selectors
    .register(ENGINE, ENGINE_SOURCE, { contentScript: true })
    .then(() => true)
    .catch((err: unknown) => /already registered/.test(String(err)));
  return registered;
}
// Registered before any browser context exists, so every context has it from its first page.
void engineReady();

/** A ref of a frame's element (`f1e3`) is in another document; the engine reads the main frame only. */
const inMainFrame = (ref: string) => /^e\d+$/.test(ref);

/** The selectors of these refs from the page's latest AI snapshot; a ref missing here was not found. */
export async function selectorsInOnePass(page: Page, refs: string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const asked = refs.filter(inMainFrame);
  if (!asked.length || !(await engineReady())) return found;
  const text = await page
    .locator(`${ENGINE}=${asked.join(",")}`)
    .textContent({ timeout: 2000 })
    .catch(() => null);
  if (!text) return found;
  try {
    for (const [ref, selector] of Object.entries(JSON.parse(text) as Record<string, unknown>))
      if (typeof selector === "string" && selector) found.set(ref, selector);
  } catch {}
  return found;
}

/** Sets `selector` on each control: one pass for all, then one call per control the pass missed. */
export async function addSelectors(page: Page, controls: Array<{ ref: string; selector?: string }>) {
  const found = await selectorsInOnePass(
    page,
    controls.map((c) => c.ref),
  );
  await Promise.all(
    controls.map(async (c) => {
      c.selector =
        found.get(c.ref) ??
        (await page
          .locator(`aria-ref=${c.ref}`)
          .evaluate(cssPathOf, undefined, { timeout: 2000 })
          .catch(() => undefined));
    }),
  );
}
