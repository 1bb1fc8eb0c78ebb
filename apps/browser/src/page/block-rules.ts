import type { ScrapeRequest } from "@browserfleet/contracts";
import type { BrowserContext } from "playwright-core";
import { globToRegExp } from "./glob.ts";

/** The caller's block rules. Routing costs a round trip per request, so it is installed only when there are rules. */
export async function installBlockRules(
  context: BrowserContext,
  block: ScrapeRequest["block"],
): Promise<void> {
  const types = new Set<string>(block?.resourceTypes ?? []);
  const patterns = (block?.urlPatterns ?? []).map(globToRegExp);
  if (types.size === 0 && patterns.length === 0) return;
  await context.route("**/*", (route) => {
    const request = route.request();
    const type = request.resourceType();
    const url = request.url();
    // The page itself is never blocked: the caller asked for it.
    if (type !== "document" && (types.has(type) || patterns.some((re) => re.test(url))))
      return route.abort("blockedbyclient");
    return route.continue();
  });
}
