/**
 * The host side of code that runs in the page. Each program under entries/ is bundled by esbuild
 * (scripts/build-injected.ts) into one self-contained function expression, committed under generated/.
 * `inPage` turns that text into a function Playwright can send: Playwright serializes a function with
 * `String(fn)` and calls it in the page with the evaluate call's argument, so a stand-in whose
 * `toString()` is the bundle runs the bundle there. The stand-in carries the entry's own type, so
 * `frame.evaluate(entry, arg)`, `locator.evaluateAll(entry, arg)` and `context.addInitScript(entry)`
 * are checked as if the entry were passed directly.
 *
 * Called in Node, the stand-in throws: the code is for a page only (unit tests import entries/ directly).
 */
// biome-ignore lint/suspicious/noExplicitAny: matches any entry's signature
export function inPage<F extends (...args: any[]) => unknown>(name: string, source: string): F {
  const standIn = () => {
    throw new Error(`${name} runs in a page: pass it to evaluate(), not call it`);
  };
  Object.defineProperty(standIn, "name", { value: name });
  standIn.toString = () => source;
  return standIn as unknown as F;
}
