import type { TaskError } from "@browserfleet/contracts";

/** Every code a browser worker answers with, for a whole task or for one format. */
export type BrowserErrorCode =
  | "timeout"
  | "ssrf_blocked"
  | "upstream_failed"
  | "invalid_request"
  | "invalid_selector"
  | "render_failed"
  | "browser_crashed"
  | "too_large"
  | "not_supported"
  | "not_for_documents"
  | "document_too_large"
  | "document_corrupt"
  | "result_too_large"
  | "page_closed"
  | "action_failed"
  | "session_lost"
  | "unavailable"
  // Codes the markdown converter reports for its options (includeTags and excludeTags).
  | (string & {});

/**
 * The one error a worker throws on purpose: a code the api maps to its answer, and the HTTP status a
 * whole task fails with (a single format's failure keeps only code and message; its status is 422).
 */
export class BrowserError extends Error {
  constructor(
    readonly code: BrowserErrorCode,
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const isBrowserGone = (message: string) =>
  /Target.*closed|browser has been closed|crash|has been closed/i.test(message);

/** Any failure as a code and one line of message: ours as they are, Playwright's classified. */
export function errorOf(err: unknown): { code: BrowserErrorCode; message: string } {
  if (err instanceof BrowserError) return { code: err.code, message: err.message };
  const message = String((err as Error)?.message ?? err)
    .split("\n")[0]!
    .slice(0, 500);
  if (/timeout/i.test(message)) return { code: "timeout", message };
  if (/not a valid selector|Unexpected token|selector/i.test(message))
    return { code: "invalid_selector", message };
  return { code: "render_failed", message };
}

/** A task that failed as a whole, as the reply's error. */
export function failureOf(err: unknown): TaskError {
  if (err instanceof BrowserError) return { code: err.code, message: err.message, status: err.status };
  const { message } = errorOf(err);
  if (isBrowserGone(message))
    return {
      code: "browser_crashed",
      message: `the browser failed while rendering: ${message}`,
      status: 503,
    };
  return { code: "render_failed", message, status: 502 };
}
