import { SESSION_ID_PATTERN, sessionSubject } from "@browserfleet/bus";
import { type SessionCloseReply, sessionCloseReply } from "@browserfleet/contracts";
import type { Caller, Payer } from "../billing/payment.ts";
import { readReply } from "../bus-replies.ts";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { noteEnded } from "../sessions/ended-events.ts";
import { endSession, findSession, type SessionOwner, type SessionRow } from "../sessions/store.ts";

/* What the session operations share: who may use a session, how an ended one answers, closing it on its worker. */

export const notFound = (id: string) =>
  new ApiError(
    "not_found",
    `no session ${id} for this caller (sessions are visible only to whoever opened them)`,
  );

export const noCapacity = () =>
  new ApiError(
    "no_capacity",
    "every browser slot is busy (live sessions hold one each); retry in a few seconds or close a session you no longer need",
    undefined,
    { "Retry-After": "5" },
  );

export function ownerOf(payer: Payer): SessionOwner {
  if (payer.kind === "account") return { accountId: payer.accountId };
  if (payer.kind === "wallet") return { payer: payer.address };
  return { client: payer.client };
}

/**
 * May this caller use the session? A key sees its account's sessions; a keyless MCP client its own
 * address's. A wallet-opened session has no other identity than its unguessable id until a payment
 * shows the wallet: an act's payment must come from the same wallet (checked once it is verified).
 */
function mayUse(row: SessionRow, caller: Caller): boolean {
  if (row.accountId) return caller.auth?.accountId === row.accountId;
  if (row.client) return !caller.auth && caller.allowanceClient === row.client;
  if (row.payer) return !caller.auth && caller.allowanceClient === undefined;
  return false;
}

export async function ownedSession(ctx: ApiContext, id: string, caller: Caller): Promise<SessionRow> {
  return owned(SESSION_ID_PATTERN.test(id) ? await findSession(ctx.db.db, id) : undefined, id, caller);
}

/** The session's row, read already (undefined: there is none), when this caller may use it. */
export function owned(row: SessionRow | undefined, id: string, caller: Caller): SessionRow {
  if (!row || !mayUse(row, caller)) throw notFound(id);
  return row;
}

export function ended(row: SessionRow): ApiError {
  const when = row.closedAt ? ` at ${row.closedAt.toISOString()}` : "";
  if (row.status === "lost")
    return new ApiError(
      "session_lost",
      `session ${row.id} was lost${when} (${row.closeReason}); open a new session`,
    );
  return new ApiError(
    "session_closed",
    `session ${row.id} ended${when} (${row.closeReason ?? row.status}); open a new session`,
  );
}

/**
 * No worker answers for the session: it ended (its end event may not be recorded yet), or the browser
 * holding it is gone. Record which; the row as it stands afterwards.
 */
export async function markGone(ctx: ApiContext, row: SessionRow): Promise<SessionRow> {
  const expired = row.expiresAt !== null && row.expiresAt.getTime() <= Date.now();
  const after = await endSession(ctx.db.db, row.id, expired ? "idle" : "browser_lost");
  noteEnded(ctx, after);
  return after?.row ?? { ...row, status: "lost" };
}

export const isNoResponders = (err: unknown) =>
  /no responders|503/i.test(String((err as Error)?.message ?? err));

export async function closeOnWorker(ctx: ApiContext, id: string): Promise<SessionCloseReply | undefined> {
  try {
    const msg = await ctx.nc.request(sessionSubject(id, "close"), new Uint8Array(), { timeout: 10_000 });
    return readReply(ctx.metrics, sessionCloseReply, "close", "session close", msg.data);
  } catch (err) {
    if (isNoResponders(err)) return undefined;
    throw err;
  }
}
