import { decodeJson, encodeJson, PROFILE_SAVE_SUBJECT } from "@browserfleet/bus";
import { checkReceived, type ProfileSaved, profileSaveMessage } from "@browserfleet/contracts";
import { ProfileLimitReached, ProfileTooLarge } from "@browserfleet/profiles";
import type { Msg, Subscription } from "@nats-io/transport-node";
import type { ApiContext } from "../context.ts";
import { findSession, sessionSavedProfile } from "../sessions/store.ts";

/**
 * Save sessions' browser states as their workers ask (a saveProfile action, or a session with profile.save
 * ending): the account and the profile come from the session's row, never from the message, so a worker
 * can only save a session into the account that opened it. One api replica takes each request.
 */
export function serveProfileSaves(ctx: ApiContext): Subscription {
  return ctx.nc.subscribe(PROFILE_SAVE_SUBJECT, {
    queue: "api",
    callback: (err, msg) => {
      if (err) return;
      void answer(ctx, msg).then((reply) => msg.respond(encodeJson(reply)));
    },
  });
}

async function answer(ctx: ApiContext, msg: Msg): Promise<ProfileSaved> {
  let value: unknown;
  try {
    value = decodeJson<unknown>(msg.data);
  } catch {}
  const checked = checkReceived(profileSaveMessage, "profile save request", value);
  if (!checked.ok) {
    ctx.metrics.malformedMessages.inc({ kind: "profile_save" });
    return refused("(unknown)", "internal", checked.problem);
  }
  const m = checked.value;
  const row = await findSession(ctx.db.db, m.sessionId).catch(() => undefined);
  const name = m.name ?? row?.profileName ?? undefined;
  if (!name)
    return refused(
      "(none)",
      "invalid_request",
      "this session opened without a profile: name one, as in { saveProfile: { name } }",
    );
  if (!row?.accountId)
    return refused(
      name,
      "key_required",
      "profiles belong to an account: only a session opened with an API key saves one",
    );
  try {
    const saved = await ctx.profiles.save({
      accountId: row.accountId,
      name,
      state: m.state,
      knownVersion: name === row.profileName ? row.profileVersion : null,
      savedBy: m.sessionId,
      maxBytes: ctx.config.PROFILE_MAX_BYTES,
      maxPerAccount: ctx.config.PROFILES_PER_ACCOUNT,
    });
    if (name === row.profileName) await sessionSavedProfile(ctx.db.db, m.sessionId, saved.version);
    ctx.metrics.profilesSaved.inc({ reason: m.reason, outcome: saved.overwrote ? "overwrote" : "saved" });
    return {
      saved: true,
      name,
      version: saved.version,
      bytes: saved.bytes,
      cookies: saved.cookies,
      savedAt: saved.updatedAt.toISOString(),
      ...(saved.overwrote
        ? {
            overwrote: {
              version: saved.overwrote.version,
              savedAt: saved.overwrote.savedAt.toISOString(),
              savedBy: saved.overwrote.savedBy,
            },
          }
        : {}),
    };
  } catch (err) {
    ctx.metrics.profilesSaved.inc({ reason: m.reason, outcome: "failed" });
    if (err instanceof ProfileTooLarge) return refused(name, "profile_too_large", err.message);
    if (err instanceof ProfileLimitReached) return refused(name, "profile_limit", err.message);
    console.error(`profile ${name} of session ${m.sessionId} not saved: ${(err as Error).message}`);
    return refused(name, "internal", "the profile could not be stored; try again");
  }
}

const refused = (name: string, code: string, message: string): ProfileSaved => ({
  saved: false,
  name,
  error: { code, message },
});
