import { POOL_NAME } from "@browserfleet/contracts";
import { z } from "zod";

/** One egress proxy pool an operator declares: an HTTP forward proxy, the countries it exits in, its price. */
export const egressPool = z.strictObject({
  name: z.string().regex(POOL_NAME, "a pool name is lower-case letters, digits and -, at most 40"),
  /** http://user:password@host:port: an HTTP forward proxy (CONNECT for https); credentials in the URL. */
  url: z
    .url({ protocol: /^http$/, error: "an http:// forward proxy URL, http://user:password@host:port" })
    .refine((u) => {
      try {
        const url = new URL(u);
        return ["", "/"].includes(url.pathname) && !url.search;
      } catch {
        return false;
      }
    }, "no path or query"),
  /** ISO 3166-1 alpha-2 codes: a request whose location.country is one of them goes out here (proxy auto). */
  countries: z.array(z.string().regex(/^[A-Z]{2}$/, "country codes in capitals, such as DE")).default([]),
  /** The pool a request with proxy auto uses when no pool is of its country. */
  default: z.boolean().default(false),
  /** What one page (or session minute) through this pool adds to the price, in micro-dollars. */
  priceMicros: z.int().min(0).default(0),
});
export type EgressPool = z.infer<typeof egressPool>;

export const egressPools = z.array(egressPool).superRefine((pools, ctx) => {
  const seen = new Set<string>();
  for (const [i, p] of pools.entries()) {
    if (seen.has(p.name))
      ctx.addIssue({ code: "custom", path: [i, "name"], message: `pool ${p.name} twice` });
    seen.add(p.name);
  }
  if (pools.filter((p) => p.default).length > 1)
    ctx.addIssue({ code: "custom", message: "at most one pool is the default" });
});

/** EGRESS_PROXIES as the environment gives it: a JSON array of pools. */
export const egressPoolsSetting = z
  .string()
  .default("[]")
  .transform((s, ctx) => {
    try {
      return JSON.parse(s) as unknown;
    } catch (err) {
      ctx.addIssue({ code: "custom", message: `not JSON: ${(err as Error).message}` });
      return z.NEVER;
    }
  })
  .pipe(egressPools);
