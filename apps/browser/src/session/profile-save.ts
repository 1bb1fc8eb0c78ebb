import { decodeJson, encodeJson, PROFILE_SAVE_SUBJECT } from "@browserfleet/bus";
import {
  checkReceived,
  type ProfileSaved,
  type ProfileSaveMessage,
  profileSaved,
} from "@browserfleet/contracts";
import type { NatsConnection } from "@nats-io/transport-node";
import type { BrowserContext } from "playwright-core";
import { errorOf } from "../errors.ts";

/** The longest a save may take when nothing else bounds it (a session ending on its own). */
export const PROFILE_SAVE_MS = 15_000;

/**
 * Save a session's browser state to its profile: the state is read here (cookies, localStorage and
 * IndexedDB of every origin), and an api replica seals and stores it under the session's account. The
 * answer says what was saved or why not; it never throws.
 */
export async function saveSessionProfile(
  nc: NatsConnection,
  session: { id: string; context: BrowserContext },
  name: string | undefined,
  reason: string,
  deadline: number,
): Promise<ProfileSaved> {
  const shown = name ?? "(the session's profile)";
  const failed = (code: string, message: string): ProfileSaved => ({
    saved: false,
    name: shown,
    error: { code, message },
  });
  const left = () => Math.max(1, deadline - Date.now());
  let state: string;
  try {
    state = JSON.stringify(await bounded(session.context.storageState({ indexedDB: true }), left()));
  } catch (err) {
    return failed("render_failed", `the browser's state could not be read: ${errorOf(err).message}`);
  }
  const message: ProfileSaveMessage = { sessionId: session.id, ...(name ? { name } : {}), state, reason };
  const payload = encodeJson(message);
  const max = nc.info?.max_payload ?? 1024 * 1024;
  if (payload.byteLength > max)
    return failed(
      "profile_too_large",
      `the browser state is ${payload.byteLength} bytes, more than the bus carries (${max}); clear what the site does not need (large localStorage or IndexedDB entries) and save again`,
    );
  try {
    const reply = await nc.request(PROFILE_SAVE_SUBJECT, payload, { timeout: left() });
    const checked = checkReceived(profileSaved, "profile save reply", decodeJson<unknown>(reply.data));
    return checked.ok ? checked.value : failed("internal", checked.problem);
  } catch (err) {
    const m = errorOf(err).message;
    return /no responders|503/i.test(m)
      ? failed("unavailable", "no api is there to store the profile; try again shortly")
      : failed("timeout", `the profile was not stored in time: ${m}`);
  }
}

function bounded<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    work,
    new Promise<never>((_r, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
