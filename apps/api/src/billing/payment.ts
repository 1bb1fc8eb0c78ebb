import type { UsageRecorder } from "@browserfleet/billing";
import type { PaymentSetup } from "@browserfleet/contracts";
import type { Db } from "@browserfleet/db";
import type { Quote } from "@browserfleet/pricing";
import type { Request, Response } from "express";
import { type AllowanceRule, clientAddress } from "../allowance/index.ts";
import type { ApiContext } from "../context.ts";
import type { ApiMetrics } from "../metrics.ts";
import { balanceLease, type Leases, leaseReservation } from "./balance-lease.ts";
import { keyBalance, ledgerHolds } from "./key-balance.ts";
import { type AllowanceCounters, keylessAllowance } from "./keyless-allowance.ts";
import { paymentRequired } from "./unpaid.ts";
import { challenge, type Facilitator, ledgerWalletClaims, wallet } from "./wallet.ts";
import { type CallBooks, type PaidWork, type Payer, runPaid, type WayOfPaying } from "./way-of-paying.ts";

export { HOW_TO_GET_A_KEY } from "./unpaid.ts";
export type { PaidWork, Payer } from "./way-of-paying.ts";

/** How this deployment takes payment: wallets only when the operator configured one (X402_PAY_TO). */
export const paymentSetup = (ctx: Pick<ApiContext, "x402">): PaymentSetup => ({
  wallets: ctx.x402 !== undefined,
  upto: ctx.x402?.schemes.includes("upto") ?? false,
});

/** The caller of a priced call, whatever the transport (REST or an MCP tool call). */
export interface Caller {
  auth?: { keyId: string; accountId: string };
  requestId: string;
  /** The x402 PAYMENT-SIGNATURE the caller sent, if any (REST only). */
  paymentSignature?: string;
  /** The URL a wallet's 402 challenge names as the resource. */
  resourceUrl: string;
  /** The api's address as this caller reached it (scheme, host, no trailing slash): where file links point. */
  baseUrl: string;
  /** Keyless MCP callers spend the free allowance, counted per this client address. */
  allowanceClient?: string;
  setHeader(name: string, value: string): void;
}

/** Where callers reach the api: PUBLIC_BASE_URL, else the scheme and Host of this request. */
export const baseOf = (ctx: ApiContext, req: Request) =>
  ctx.config.PUBLIC_BASE_URL ?? `${req.protocol}://${req.headers.host ?? "localhost"}`;

export function restCaller(ctx: ApiContext, req: Request, res: Response): Caller {
  const base = baseOf(ctx, req);
  const sig = req.headers["payment-signature"];
  return {
    auth: req.auth,
    requestId: req.requestId,
    paymentSignature: typeof sig === "string" ? sig : undefined,
    resourceUrl: base.replace(/\/$/, "") + req.originalUrl,
    baseUrl: base.replace(/\/$/, ""),
    setHeader: (name, value) => res.setHeader(name, value),
  };
}

export function mcpCaller(ctx: ApiContext, req: Request, tool: string): Caller {
  return {
    auth: req.auth,
    requestId: req.requestId,
    resourceUrl: `mcp:${tool}`,
    baseUrl: baseOf(ctx, req).replace(/\/$/, ""),
    allowanceClient: req.auth ? undefined : clientAddress(req, ctx.config.TRUSTED_PROXY_HOPS),
    setHeader: () => {},
  };
}

export interface PaidCall<T> {
  /** The operation's free-allowance rule; its name is the call's route in usage rows and metrics. */
  allowance: AllowanceRule;
  /** The validated request, for the free allowance's rules. */
  request: unknown;
  quote: Quote;
  /** What the wallet's 402 challenge says the call is. */
  description: string;
  /** Why this call needs a key, when it is not open to wallet payments (spec: crawl, batch, json). */
  keyOnly?: string;
  /** How long the hold may stay open before the reaper refunds it (the call's worst-case duration). */
  holdMs: number;
  /**
   * The quote is final before the work (a call served wholly from cache): an account is charged from the
   * replica's balance lease (no database round trip) instead of a hold and its settlement, and refunded
   * if the work throws after all.
   */
  final?: boolean;
  /**
   * The call is short and charged what came out, at most its quote (an act): an account's quote is set
   * aside from the replica's balance lease and settled there (see leaseReservation), not held in the
   * ledger.
   */
  leased?: boolean;
  work(payer: Payer): Promise<PaidWork<T>>;
}

/** What paying for calls uses: the ledger, balance leases, allowance counters, wallets, usage and metrics. */
export interface PaymentDeps {
  db: { db: Db };
  leases: Leases;
  allowance: AllowanceCounters;
  /** Wallet payments; undefined when X402_PAY_TO is not configured. */
  x402?: Facilitator;
  usage: Pick<UsageRecorder, "record">;
  metrics: Pick<ApiMetrics, "charged" | "refunded">;
}

/**
 * Run priced work for whoever pays: an account (hold the quote, capture what came out, refund the rest),
 * a keyless MCP caller (the free allowance), or a wallet (verify the x402 payment first, settle it only if
 * something came out). A keyless call without payment gets the 402 quote: a quote, not a charge.
 */
export async function payFor<T>(deps: PaymentDeps, caller: Caller, call: PaidCall<T>): Promise<T> {
  const route = call.allowance.name;
  const way = wayOfPaying(deps, caller, call, callBooks(deps, caller, route));
  return runPaid(way, { ...call, route, requestId: caller.requestId }, call.work);
}

function wayOfPaying(
  deps: PaymentDeps,
  caller: Caller,
  call: PaidCall<unknown>,
  books: CallBooks,
): WayOfPaying {
  if (caller.auth) {
    const { accountId } = caller.auth;
    if (call.final) return balanceLease({ leases: deps.leases, books }, accountId);
    if (call.leased) return leaseReservation({ leases: deps.leases, books }, accountId);
    return keyBalance({ holds: ledgerHolds(deps.db.db), books }, accountId);
  }
  if (caller.allowanceClient !== undefined) {
    const wallets = deps.x402 !== undefined;
    return keylessAllowance({ allowance: deps.allowance, books, wallets }, caller.allowanceClient);
  }
  const { x402 } = deps;
  const priceMicros = call.quote.micros;
  if (call.keyOnly || !x402) throw paymentRequired({ priceMicros, wallets: !!x402, keyOnly: call.keyOnly });
  const signature = caller.paymentSignature;
  if (signature === undefined) {
    const quote = {
      amountMicros: priceMicros,
      resourceUrl: caller.resourceUrl,
      description: call.description,
    };
    throw challenge(x402, quote, paymentRequired({ priceMicros, wallets: true }));
  }
  const claims = ledgerWalletClaims(deps.db.db);
  return wallet({ x402, claims, books }, { signature, resourceUrl: caller.resourceUrl });
}

/** The call's usage row, money metrics and response headers, for its route. */
function callBooks(deps: PaymentDeps, caller: Caller, route: string): CallBooks {
  const started = performance.now();
  return {
    usage: (status, priceMicros, who) =>
      deps.usage.record({
        ...who,
        route,
        status,
        priceMicros,
        requestId: caller.requestId,
        ms: Math.round(performance.now() - started),
      }),
    charged: (payer, micros) => deps.metrics.charged.inc({ route, payer }, micros),
    refunded: (micros) => deps.metrics.refunded.inc({ route }, micros),
    setHeader: (name, value) => caller.setHeader(name, value),
  };
}
