import type { RoutePayment } from "@browserfleet/contracts";
import type { PriceRule } from "@browserfleet/pricing";
import type { Request } from "express";
import type { z } from "zod";
import type { AllowanceRule } from "../allowance/index.ts";
import type { Caller } from "../billing/payment.ts";
import type { ApiContext } from "../context.ts";

/** MCP tool annotations: what calling the tool does to the world, for clients deciding what to confirm. */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  /** Reaches arbitrary web sites (or an external index), not only this service. */
  openWorldHint: boolean;
}

/** Reads the web, changes nothing: scrape, map, search. */
export const READS_WEB: ToolHints = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
};
/** Starts something in this service that then reads the web: a job or a session. */
export const STARTS: ToolHints = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
};
/** Reads this service's own state. */
export const STATUS: ToolHints = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** The MCP tool an operation is (spec: tool-to-route mapping). */
export interface ToolSpec<A, I> {
  name: string;
  /** Short human-readable name (MCP title). */
  title: string;
  annotations: ToolHints;
  description: string;
  /** The operation's input from the tool's validated arguments; without it, the arguments are the input. */
  toInput?: (args: A) => I;
}

/** One tool per value of a path parameter on this deployment (search: one per configured provider). */
export interface ToolsPerValue<A, I> {
  /** Their names, with the parameter in braces: web_search_{provider}. */
  name: string;
  each: (ctx: ApiContext) => ToolSpec<A, I>[];
}

/** What a priced POST adds: its price, who may pay, its keyless allowance, and its GET self-description. */
export interface Priced {
  /**
   * Its price (definePrice): the words every description shows and the quote its handler charges from.
   * Read as words here; the handler calls its own rule's quote with its own input.
   */
  price: PriceRule<never>;
  /** The keyless free allowance's rule (allowance/allowance-rules.ts); its name is also the usage rows' and money metrics'. */
  allowance: AllowanceRule;
  /** Who may pay: anyone (key or wallet) or a key only; `paymentTerms` words it for a deployment. */
  payment: RoutePayment;
  /** The operation takes the json format, which needs a key. */
  jsonFormat?: boolean;
  limits?: string;
  example: Record<string, unknown>;
  /** Error statuses of this operation beyond those every priced call may answer. */
  errors?: number[];
  /**
   * The self-description of one concrete path (e.g. search's `{provider}` named): what it adds to the
   * generic one, or an ApiError (an unknown provider is a 404).
   */
  describePath?: (ctx: ApiContext, params: Record<string, string>) => Record<string, unknown>;
}

/** How OpenAPI documents an operation that is not priced (status, cancel, close, feedback). */
export interface Free {
  tags: string[];
  /** `any`: a key, or a wallet where the deployment takes them; `key`: a key only; none: nobody needs one. */
  auth?: "any" | "key";
  /** The 200's description. */
  ok: string;
  /** The error statuses it answers. */
  errors: number[];
  /** The components name of its response schema, when several operations share one. */
  responseName?: string;
  /** The answer depends on the deployment only: served with Cache-Control and an ETag. */
  cacheable?: boolean;
}

/** Who is calling, whatever the transport. */
export interface CallContext {
  caller: Caller;
  /** The HTTP request the call came in (a REST route's, or POST /mcp's). */
  http: Request;
}

/**
 * One operation of the interface: where it is (method and path, written only here), what it takes and
 * answers (the contracts' zod schemas), its MCP tool, what it costs and who may pay, and what it does.
 * REST mounting, the MCP tool list, the GET self-descriptions, OpenAPI and llms.txt are all made from
 * the list of these (operations/index.ts).
 *
 * `I` is what the handler takes; `A` what a POST body or a tool's arguments are (the same, except where
 * a path parameter or the query is part of the input).
 */
export interface Operation<I = unknown, A = I, O = unknown> {
  /** The OpenAPI operationId; component schemas are named after it (scrapeBatch: ScrapeBatchRequest). */
  name: string;
  method: "GET" | "POST" | "DELETE";
  /** As OpenAPI writes it: `{param}` for a path parameter. */
  path: string;
  summary: string;
  /** What each path parameter is. */
  params?: Record<string, string>;
  /** A POST's JSON body, and the MCP tool's arguments. */
  request?: z.ZodType<A>;
  /** The query parameters a GET takes (documented; `fromHttp` reads them). */
  query?: z.ZodType;
  response?: z.ZodType<O>;
  tool?: ToolSpec<A, I> | ToolsPerValue<A, I>;
  /** Exactly one of priced and free. */
  priced?: Priced;
  free?: Free;
  /** The input of a REST call, when it is not the JSON body validated by `request` (path, query). */
  fromHttp?: (http: Request, ctx: ApiContext) => I;
  run(ctx: ApiContext, input: I, call: CallContext): Promise<O>;
}

// biome-ignore lint/suspicious/noExplicitAny: the list holds operations of every input type
export type AnyOperation = Operation<any, any, any>;

/**
 * Declare an operation, with its handler's input typed from its schemas. What it says about price and
 * payment stays typed, so its handler pays under the definition's allowance rule.
 */
export function defineOperation<A, I = A, O = unknown, P extends Priced | undefined = undefined>(
  op: Operation<I, A, O> & { priced?: P },
): Operation<I, A, O> & { priced: P } {
  return op as Operation<I, A, O> & { priced: P };
}

/** The express form of a path: `{id}` becomes `:id`. */
export const expressPath = (path: string): string => path.replace(/\{(\w+)\}/g, ":$1");

/** The names of a path's parameters, in order. */
export const pathParams = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

/** The tools an operation is on this deployment (none, one, or one per configured provider). */
export function toolsOf(op: AnyOperation, ctx: ApiContext): ToolSpec<unknown, unknown>[] {
  if (!op.tool) return [];
  return "each" in op.tool ? op.tool.each(ctx) : [op.tool];
}
