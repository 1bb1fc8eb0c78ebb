import { usd } from "@browserfleet/pricing";
import type { Caller } from "../billing/payment.ts";
import { ApiError } from "../errors.ts";
import type { Free } from "./operation.ts";

/* What the account views share: each reads only the caller's own account, found from the key. */

export const money = (micros: number) => ({ usd: usd(micros), micros });

export function requireKey(caller: Caller): { keyId: string; accountId: string } {
  if (!caller.auth)
    throw new ApiError("key_required", "account views need an API key: send Authorization: Bearer <API key>");
  return caller.auth;
}

/** The views' free answer, as OpenAPI documents it. */
export const accountView = (ok: string, responseName: string): Free => ({
  tags: ["account"],
  auth: "key",
  ok,
  errors: [401, 429],
  responseName,
});
