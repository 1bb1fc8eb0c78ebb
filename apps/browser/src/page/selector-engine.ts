import { selectors } from "playwright-core";

/**
 * Registers a custom selector engine with Playwright once per process, before any browser context
 * exists, so every context has it from its first page. The answer says whether it is usable: false if
 * this Playwright refuses it (a second registration under the same name counts as done).
 */
export function registerSelectorEngine(
  name: string,
  /** A bundle of injected/generated whose entry returns the engine (Playwright calls it once per frame). */
  engine: () => {
    query(root: Node, body: string): Element | null;
    queryAll(root: Node, body: string): Element[];
  },
): () => Promise<boolean> {
  const registered = selectors
    .register(name, engine, { contentScript: true })
    .then(() => true)
    .catch((err: unknown) => /already registered/.test(String(err)));
  return () => registered;
}
