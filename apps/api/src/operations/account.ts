import { accountBalance, getAccount } from "@browserfleet/billing";
import { accountView } from "@browserfleet/contracts";
import { ApiError } from "../errors.ts";
import { money, requireKey, accountView as view } from "./account-access.ts";
import { defineOperation } from "./operation.ts";

export const account = defineOperation({
  name: "account",
  method: "GET",
  path: "/web/v1/account",
  summary: "The account, its balance and the key used",
  response: accountView,
  free: view("The account, its balance and the key used", "Account"),
  fromHttp: () => undefined,
  run: async (ctx, _input, { caller }) => {
    const auth = requireKey(caller);
    const db = ctx.db.db;
    await ctx.leases.flush(auth.accountId);
    const found = await getAccount(db, auth.accountId);
    const funds = await accountBalance(db, auth.accountId);
    if (!found || !funds) throw new ApiError("invalid_key", "this key's account no longer exists");
    const prefix = (await db.query.apiKeys.findFirst({ where: (k, { eq }) => eq(k.id, auth.keyId) }))?.prefix;
    return {
      account: { id: found.id, name: found.name, createdAt: found.createdAt.toISOString() },
      balance: money(funds.balanceMicros),
      held: money(funds.heldMicros),
      key: { id: auth.keyId, prefix: prefix ?? "" },
      topUp:
        ctx.config.TOPUP_INSTRUCTIONS ??
        `Ask the operator of this deployment to add money to account ${found.id} (npm run admin -- top-up ${found.id} <USD>).${ctx.config.X402_PAY_TO ? " Without a balance, scrapes, sessions, acts, maps and searches can also be paid per call from an x402 wallet." : ""}`,
    };
  },
});
