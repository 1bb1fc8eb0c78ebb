import { z } from "zod";
import { payWith } from "./payment-terms.ts";
import { ACTION_FORMS } from "./session.ts";

export const errorDetail = z.object({
  field: z.string().describe("Dotted path of the field at fault, empty for the body itself"),
  message: z.string(),
  code: z.string().optional(),
});
export type ErrorDetail = z.infer<typeof errorDetail>;

export const errorBody = z.object({
  success: z.literal(false),
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.array(errorDetail).optional(),
    price: z
      .object({ usd: z.string(), micros: z.int() })
      .optional()
      .describe("On 402: the exact price of this call (micros = millionths of a dollar = USDC atomic units)"),
    balance: z.object({ usd: z.string(), micros: z.int() }).optional().describe("On insufficient_balance"),
    payWith: z
      .array(payWith)
      .optional()
      .describe(
        "On 402 payment_required: the ways this call can be paid here (x402 only where the deployment takes wallet payments and the call is not key-only)",
      ),
    requestId: z.string().optional(),
  }),
});
export type ErrorBody = z.infer<typeof errorBody>;

/** Every error code the service answers with, and its HTTP status. */
export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_json: 400,
  ssrf_blocked: 400,
  invalid_url: 400,
  invalid_cursor: 400,
  unresolvable: 400,
  unknown_proxy_pool: 400,
  unauthorized: 401,
  invalid_key: 401,
  key_revoked: 401,
  key_required: 401,
  proxy_not_allowed: 403,
  live_view_only: 403,
  payment_required: 402,
  insufficient_balance: 402,
  payment_invalid: 402,
  payment_mismatch: 402,
  payment_replayed: 402,
  payment_failed: 402,
  allowance_exhausted: 402,
  not_found: 404,
  cursor_not_found: 404,
  profile_not_found: 404,
  profile_limit: 409,
  method_not_allowed: 405,
  session_lost: 410,
  session_closed: 410,
  cursor_expired: 410,
  payload_too_large: 413,
  profile_too_large: 413,
  no_capacity: 429,
  rate_limited: 429,
  internal: 500,
  not_implemented: 501,
  upstream_failed: 502,
  render_failed: 502,
  result_too_large: 502,
  browser_crashed: 503,
  unavailable: 503,
  timeout: 504,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * A union's issues as those of the one option the input is a form of (the only one without an unknown key
 * at its top, as an action `{click: {...}}` is only a click), so a bad value deep in an action names its
 * field; a union no option fits stays one issue.
 */
function fittingIssues(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== "invalid_union") return [issue];
  const fitting = issue.errors.filter(
    (option) => !option.some((i) => i.code === "unrecognized_keys" && i.path.length === 0),
  );
  if (fitting.length !== 1) return [issue];
  return fitting[0]!.flatMap((i) => fittingIssues({ ...i, path: [...issue.path, ...i.path] }));
}

/** Turn zod issues into details that name the field at fault. */
export function detailsFromZod(error: z.ZodError): ErrorDetail[] {
  return error.issues.flatMap(fittingIssues).map((issue) => {
    const field = issue.path.map(String).join(".");
    let message = issue.message;
    if (issue.code === "unrecognized_keys") {
      return {
        field: [field, ...issue.keys].filter(Boolean).join("."),
        message: `unknown field`,
        code: issue.code,
      };
    }
    // A record's key (a header name) that its schema refused: say why, not only that it was refused.
    if (issue.code === "invalid_key" && issue.issues[0]) {
      message = `invalid key: ${issue.issues[0].message}`;
    }
    if (issue.code === "invalid_union" && /^actions\.\d+$/.test(field)) {
      message = `not a known action form: use one of ${ACTION_FORMS.join(", ")}`;
    }
    return { field, message, code: issue.code };
  });
}
