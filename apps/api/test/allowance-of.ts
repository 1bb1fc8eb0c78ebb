import type { AllowanceRule } from "../src/allowance/index.ts";
import { PRICED_OPERATIONS } from "../src/operations/index.ts";

/** The free-allowance rule an operation carries, by its name (scrape, map, session, act, search, crawl, batch). */
export function allowanceOf(name: string): AllowanceRule {
  const rule = PRICED_OPERATIONS.find((op) => op.priced.allowance.name === name)?.priced.allowance;
  if (!rule) throw new Error(`no operation has the allowance rule ${name}`);
  return rule;
}

/** Which counters a keyless call of `route` uses, or why the allowance refuses it (the operation's own rule). */
export const allowanceFor = (call: { route: string; request: unknown }, now: Date) =>
  allowanceOf(call.route).decide(call.request, now);
