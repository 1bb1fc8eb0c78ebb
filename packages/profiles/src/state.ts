/** What a saved browser state holds, told without opening it: its size, cookies and sites. */
export interface StateSummary {
  bytes: number;
  cookies: number;
  /** Cookie domains and storage origins' hosts, without a leading dot, sorted. */
  sites: string[];
}

interface StorageStateLike {
  cookies?: { domain?: unknown }[];
  origins?: { origin?: unknown }[];
}

/** The summary of a storage state given as Playwright's JSON; throws when it is not one. */
export function summarize(stateJson: string): StateSummary {
  const state = JSON.parse(stateJson) as StorageStateLike;
  if (
    typeof state !== "object" ||
    state === null ||
    !Array.isArray(state.cookies) ||
    !Array.isArray(state.origins)
  )
    throw new Error("not a browser storage state: it needs cookies and origins");
  const sites = new Set<string>();
  for (const c of state.cookies) if (typeof c.domain === "string") sites.add(c.domain.replace(/^\./, ""));
  for (const o of state.origins) {
    if (typeof o.origin !== "string") continue;
    try {
      sites.add(new URL(o.origin).host);
    } catch {}
  }
  return { bytes: Buffer.byteLength(stateJson), cookies: state.cookies.length, sites: [...sites].sort() };
}
