import { usageByDay } from "@browserfleet/billing";
import { usageQuery, usageView } from "@browserfleet/contracts";
import { parseQuery } from "../validate.ts";
import { account } from "./account.ts";
import { money, requireKey, accountView as view } from "./account-access.ts";
import { defineOperation } from "./operation.ts";

export const accountUsage = defineOperation({
  name: "accountUsage",
  method: "GET",
  path: `${account.path}/usage`,
  summary: "Calls and spend per route and day",
  query: usageQuery,
  response: usageView,
  free: view("Calls and spend per route and day", "AccountUsage"),
  fromHttp: (http) => http.query as unknown,
  run: async (ctx, query, { caller }) => {
    const auth = requireKey(caller);
    const { days } = parseQuery(usageQuery, query);
    await ctx.usage.flush();
    const rows = await usageByDay(ctx.db.db, auth.accountId, days);
    const spent = rows.reduce((s, r) => s + r.spentMicros, 0);
    return {
      days,
      usage: rows.map((r) => ({
        day: r.day,
        route: r.route,
        calls: r.calls,
        failed: r.failed,
        spent: money(r.spentMicros),
      })),
      total: { calls: rows.reduce((s, r) => s + r.calls, 0), spent: money(spent) },
    };
  },
});
