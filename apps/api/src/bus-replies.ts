import { decodeJson } from "@browserfleet/bus";
import { checkReceived } from "@browserfleet/contracts";
import type { z } from "zod";
import { ApiError } from "./errors.ts";
import type { ApiMetrics } from "./metrics.ts";

/**
 * A worker's reply that is not what the contracts declare (a worker of another version during a rolling
 * update, or a bug): counted by kind, and answered as a 500 that says so. The call fails, so it is not
 * charged.
 */
export function malformedReply(
  metrics: Pick<ApiMetrics, "malformedMessages">,
  kind: string,
  problem: string,
  what: string,
): ApiError {
  metrics.malformedMessages.inc({ kind });
  return new ApiError(
    "internal",
    `a browser worker answered the ${what} with a reply this api cannot read (${problem}); nothing was charged; try again`,
  );
}

/**
 * Read a reply received outside the task queue (a session's act and close subjects) against its schema;
 * a reply that is not JSON or not what the schema declares is a malformedReply.
 */
export function readReply<S extends z.ZodType>(
  metrics: Pick<ApiMetrics, "malformedMessages">,
  schema: S,
  kind: string,
  what: string,
  data: Uint8Array,
): z.infer<S> {
  let value: unknown;
  try {
    value = decodeJson<unknown>(data);
  } catch (err) {
    throw malformedReply(metrics, kind, `not JSON: ${(err as Error).message}`, what);
  }
  const checked = checkReceived(schema, `${kind} reply`, value);
  if (!checked.ok) throw malformedReply(metrics, kind, checked.problem, what);
  return checked.value;
}
