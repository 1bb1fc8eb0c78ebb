import {
  detailsFromZod,
  ERROR_STATUS,
  type ErrorBody,
  type ErrorCode,
  type ErrorDetail,
} from "@browserfleet/contracts";
import type { ErrorRequestHandler, RequestHandler } from "express";
import type { ZodError } from "zod";

/** The one error the api throws; the error middleware turns it into the JSON error body. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
    /** Extra members of the error object: the price and ways to pay on a 402, the balance when it is too low. */
    readonly extra?: Pick<ErrorBody["error"], "price" | "balance" | "payWith">,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }

  static invalid(error: ZodError): ApiError {
    const details = detailsFromZod(error);
    const first = details[0];
    const where = first?.field ? `${first.field}: ` : "";
    return new ApiError(
      "invalid_request",
      `invalid request: ${where}${first?.message ?? "bad input"}`,
      details,
    );
  }
}

export const notFound: RequestHandler = (req, _res, next) => {
  next(new ApiError("not_found", `no route ${req.method} ${req.path}; see /openapi.json for the routes`));
};

/** An error reading the request body that the body parser marks as the client's (a 4xx it may expose). */
function bodyUnreadable(err: unknown): err is Error {
  const e = err as { status?: unknown; expose?: unknown; code?: unknown } | undefined;
  if (typeof e?.code === "string" && e.code.startsWith("Z_")) return true;
  return typeof e?.status === "number" && e.status >= 400 && e.status < 500 && e.expose === true;
}

/** Connection-level failures of postgres.js (its own codes), and SQLSTATE classes 08 and 57P0x. */
const DB_DOWN =
  /^(ECONNREFUSED|ECONNRESET|CONNECTION_CLOSED|CONNECTION_ENDED|CONNECTION_DESTROYED|CONNECT_TIMEOUT|08...|57P0.)$/;

/** The database could not be reached (restarting, failing over): the call may be tried again shortly. */
function databaseDown(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; depth++) {
    if (typeof e.code === "string" && DB_DOWN.test(e.code)) return true;
    e = e.cause as typeof e;
  }
  return false;
}

export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  let e: ApiError;
  if (err instanceof ApiError) e = err;
  else if (databaseDown(err))
    e = new ApiError(
      "unavailable",
      "the database is unreachable for a moment; nothing was charged; try again",
      undefined,
      {
        "Retry-After": "5",
      },
    );
  else if (err?.type === "entity.parse.failed")
    e = new ApiError("invalid_json", `the body is not valid JSON: ${err.message}`, [
      { field: "", message: "malformed JSON" },
    ]);
  else if (err?.type === "entity.too.large")
    e = new ApiError("payload_too_large", `the body is larger than ${err.limit} bytes`);
  else if (err?.type === "encoding.unsupported" || err?.type === "charset.unsupported")
    e = new ApiError("invalid_request", String(err.message));
  else if (err instanceof URIError && (err as { status?: unknown }).status === 400)
    // The router could not decode a path parameter (%ED%A0%80, a lone surrogate, is not UTF-8).
    e = new ApiError("invalid_request", `the path is not percent-encoded UTF-8: ${err.message}`, [
      { field: "", message: "a path parameter does not decode as UTF-8" },
    ]);
  else if (bodyUnreadable(err))
    // A Content-Encoding whose body does not decode (gzip that is not gzip): the caller's fault, not ours.
    e = new ApiError("invalid_request", `the body could not be read: ${err.message}`, [
      { field: "", message: "the body does not decode as its Content-Encoding says" },
    ]);
  else {
    req.log?.(`unhandled error: ${err?.stack ?? err}`);
    e = new ApiError("internal", "internal error; the request id identifies it in our logs");
  }
  if (res.headersSent) return;
  for (const [k, v] of Object.entries(e.headers ?? {})) res.setHeader(k, v);
  res.status(e.status).json({
    success: false,
    error: {
      code: e.code,
      message: e.message,
      ...(e.details ? { details: e.details } : {}),
      ...e.extra,
      requestId: res.getHeader("X-Request-Id"),
    },
  });
};

declare global {
  namespace Express {
    interface Request {
      log?: (msg: string) => void;
      requestId: string;
    }
  }
}
