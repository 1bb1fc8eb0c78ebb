import { z } from "zod";
import { pageLimit } from "./account.ts";

/** A profile's name: what an agent calls the login it saved ("shop", "mail-work"). */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const profileName = () =>
  z
    .string()
    .regex(
      PROFILE_NAME,
      "a profile name is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit",
    );

/** On scrape, batch and crawl: a saved profile loaded, never saved. */
export const profileLoad = z
  .strictObject({ name: profileName() })
  .describe(
    "Load this account's saved browser state of that name (cookies, localStorage and IndexedDB: a login a session saved) into a fresh browser context before the page loads, so the page is seen logged in. Needs an API key. A render with a profile is never served from or stored in the cache. Only a session saves a profile (profile.save on session open, or the saveProfile action)",
  );

/** On session open: load a profile, and save it back when the session ends. */
export const profileUse = z
  .strictObject({
    name: profileName(),
    save: z
      .boolean()
      .default(false)
      .describe(
        "true: save the session's browser state back to this profile when it ends (closed, idle or at its maximum lifetime); a profile that does not exist yet is made then",
      ),
  })
  .describe(
    "A saved browser state of this account (cookies, localStorage, IndexedDB), loaded into the session's fresh context before its first page: log in once, come back in another session. Needs an API key. Without save: true, a profile that does not exist is refused (404 profile_not_found)",
  );

/** A save's outcome, as the act (saveProfile) or the close of a session reports it. */
export const profileSaved = z
  .discriminatedUnion("saved", [
    z.object({
      saved: z.literal(true),
      name: z.string(),
      version: z.int().describe("Goes up by one with every save"),
      bytes: z.int(),
      cookies: z.int(),
      savedAt: z.string(),
      overwrote: z
        .object({ version: z.int(), savedAt: z.string(), savedBy: z.string().nullable() })
        .optional()
        .describe(
          "The save this one replaced, when it was not this session's own or the one it loaded: another session saved the profile meanwhile, and the last writer wins",
        ),
    }),
    z.object({
      saved: z.literal(false),
      name: z.string(),
      error: z.object({ code: z.string(), message: z.string() }),
    }),
  ])
  .describe("What became of saving the session's browser state to its profile");
export type ProfileSaved = z.infer<typeof profileSaved>;

/** What a session open says of the profile it loaded. */
export const profileLoaded = z.object({
  name: z.string(),
  loaded: z
    .boolean()
    .describe("false: no profile of that name yet; the session started empty and its save makes it"),
  version: z.int().optional(),
  save: z.boolean(),
});

export const profileInfo = z.object({
  name: z.string(),
  version: z.int(),
  bytes: z.int().describe("Size of the saved state (JSON) before encryption"),
  cookies: z.int(),
  sites: z.array(z.string()).describe("Cookie domains and storage origins the state holds something for"),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const profilesQuery = z.strictObject({
  limit: pageLimit,
  cursor: profileName().optional().describe("The `next` value of the previous page"),
});

export const profilesView = z.object({
  profiles: z.array(profileInfo),
  next: z.string().nullable().describe("Pass as cursor for the next page; null at the end"),
});

export const profileDeleteRequest = z.strictObject({ name: profileName() });
export const profileDeleteResponse = z.object({
  success: z.literal(true),
  name: z.string(),
  deleted: z.literal(true),
});
