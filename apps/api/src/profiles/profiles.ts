import type { Caller } from "../billing/payment.ts";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { profiles } from "../operations/profiles.ts";

const KEY_NEEDED = "profiles belong to an account: send an API key";

/**
 * The saved state a request's `profile` names, opened for the caller's account. A caller without a key is
 * refused here (402 telling it a key is needed, as for json); a name this account has no profile of is
 * 404 profile_not_found, unless `mayBeNew` (a session that saves it) lets it start empty.
 */
export async function profileFor(
  ctx: ApiContext,
  caller: Caller,
  profile: { name: string } | undefined,
  mayBeNew = false,
): Promise<{ state?: string; version: number | null } | undefined> {
  if (!profile) return undefined;
  const accountId = caller.auth?.accountId;
  if (!accountId) return undefined;
  const found = await ctx.profiles.load(accountId, profile.name);
  if (found) return { state: found.state, version: found.version };
  if (mayBeNew) return { version: null };
  throw new ApiError(
    "profile_not_found",
    `this account has no profile named ${profile.name}; GET ${profiles.path} lists them, and a session opened with profile: { name, save: true } makes one`,
    [{ field: "profile.name", message: "no such profile" }],
  );
}

/** Why a call with a profile needs a key (payFor's keyOnly), or undefined when it names none. */
export const profileKeyOnly = (profile: unknown): string | undefined => (profile ? KEY_NEEDED : undefined);
