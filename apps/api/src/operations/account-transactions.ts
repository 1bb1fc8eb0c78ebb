import { transactions } from "@browserfleet/billing";
import { pageQuery, transactionsView } from "@browserfleet/contracts";
import { ApiError } from "../errors.ts";
import { parseQuery } from "../validate.ts";
import { account } from "./account.ts";
import { money, requireKey, accountView as view } from "./account-access.ts";
import { defineOperation } from "./operation.ts";

function cursorNumber(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  if (!/^\d{1,15}$/.test(cursor))
    throw new ApiError("invalid_request", "cursor is not one this api gave out", [
      { field: "cursor", message: "use the `next` value of the previous page" },
    ]);
  return Number(cursor);
}

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
    const page = await transactions(ctx.db.db, auth.accountId, {
      limit: q.limit,
      before: cursorNumber(q.cursor),
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
