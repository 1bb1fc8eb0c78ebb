import { proxiesView } from "@browserfleet/contracts";
import { z } from "zod";
import { money } from "./account-access.ts";
import { defineOperation, STATUS } from "./operation.ts";

/** GET proxies: the egress pools a request may pick with its proxy field, and what each adds to the price. */
export const proxies = defineOperation({
  name: "proxies",
  method: "GET",
  path: "/web/v1/proxies",
  summary:
    "The egress proxy pools of this deployment (a request picks one with proxy), each with its countries and price",
  request: z.strictObject({}),
  response: proxiesView,
  free: { tags: ["self-description"], ok: "Pools", errors: [], cacheable: true },
  tool: {
    name: "web_proxies",
    title: "List egress proxy pools",
    annotations: STATUS,
    description:
      'List the egress proxy pools this deployment offers: each one\'s name (give proxy: "pool:<name>" to web_scrape, web_session_open, web_batch_scrape or web_crawl), the countries it exits in (proxy "auto", the default, picks the pool of location.country), and what a page through it adds to the price; and whether callers may bring their own proxy. Free.',
  },
  fromHttp: () => ({}),
  run: async (ctx) => ({
    pools: ctx.config.EGRESS_PROXIES.map((p) => ({
      name: p.name,
      countries: p.countries,
      default: p.default,
      price: money(p.priceMicros),
    })),
    callerProxies: ctx.config.CALLER_PROXIES === "on",
  }),
});
