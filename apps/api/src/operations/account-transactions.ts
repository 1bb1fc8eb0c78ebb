import { transactions } from "@browserfleet/billing";
import { pageQuery, transactionsView } from "@browserfleet/contracts";
import { parseQuery } from "../validate.ts";
import { account } from "./account.ts";
import { money, requireKey, accountView as view } from "./account-access.ts";
import { defineOperation } from "./operation.ts";
import { numericCursor } from "./shared.ts";

export const accountTransactions = defineOperation({
  name: "accountTransactions",
  method: "GET",
  path: `${account.path}/transactions`,
  summary: "The ledger, newest first, paginated",
  query: pageQuery,
  response: transactionsView,
  free: view("The ledger, newest first, paginated", "AccountTransactions"),
  fromHttp: (http) => http.query as unknown,
  run: async (ctx, query, { caller }) => {
    const auth = requireKey(caller);
    const q = parseQuery(pageQuery, query);
    await ctx.leases.flush(auth.accountId);
    const page = await transactions(ctx.db.db, auth.accountId, {
      limit: q.limit,
      before: numericCursor(q.cursor),
    });
    return {
      transactions: page.entries.map((e) => ({
        id: String(e.id),
        kind: e.kind,
        amount: money(e.amountMicros),
        held: money(e.heldMicros),
        balanceAfter: e.balanceAfterMicros === null ? null : money(e.balanceAfterMicros),
        route: e.route,
        requestId: e.requestId,
        holdId: e.holdId,
        note: e.note,
        at: e.createdAt.toISOString(),
      })),
      next: page.next === undefined ? null : String(page.next),
    };
  },
});
