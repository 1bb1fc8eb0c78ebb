import type { Config } from "@browserfleet/config";
import { type Database, schema } from "@browserfleet/db";
import { and, asc, count, eq, gt } from "drizzle-orm";
import { type KeyRing, keyRingFrom } from "./key-ring.ts";
import { open, seal, sealedWith } from "./seal.ts";
import { type StateSummary, summarize } from "./state.ts";

type Db = Database["db"];
const { profiles } = schema;

/** Sealed data is bound to the account and the name: moved elsewhere, it does not open. */
const boundTo = (accountId: string, name: string) => `profile\n${accountId}\n${name}`;

/** A profile as its owner lists it (never its contents). */
export interface ProfileInfo extends StateSummary {
  name: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface LoadedProfile {
  /** Playwright's storage state, as JSON. */
  state: string;
  version: number;
}

/** What a save did; `overwrote` when the profile had been saved by another since the saver loaded it. */
export interface SavedProfile extends ProfileInfo {
  overwrote?: { version: number; savedAt: Date; savedBy: string | null };
}

export class ProfileLimitReached extends Error {}
export class ProfileTooLarge extends Error {}

export interface SaveInput {
  accountId: string;
  name: string;
  state: string;
  /** The version the saver loaded or last saved; null: it started without one. */
  knownVersion: number | null;
  /** Who saves (a session id), shown to the next writer that overwrites it. */
  savedBy: string;
  maxBytes: number;
  maxPerAccount: number;
}

/** The sealed browser states of accounts, each opened only with its own account's id. */
export class ProfileStore {
  constructor(
    private readonly db: Db,
    private readonly keys: () => Promise<KeyRing>,
  ) {}

  async load(accountId: string, name: string): Promise<LoadedProfile | undefined> {
    const [row] = await this.db
      .select({ sealed: profiles.sealed, version: profiles.version })
      .from(profiles)
      .where(and(eq(profiles.accountId, accountId), eq(profiles.name, name)));
    if (!row) return undefined;
    return { state: open(await this.keys(), row.sealed, boundTo(accountId, name)), version: row.version };
  }

  /** Last writer wins; the answer says whose save it replaced when that was not the saver's own. */
  async save(input: SaveInput): Promise<SavedProfile> {
    const summary = summarize(input.state);
    if (summary.bytes > input.maxBytes)
      throw new ProfileTooLarge(
        `the browser state is ${summary.bytes} bytes, more than the ${input.maxBytes} a profile may hold; clear what the site does not need (large localStorage or IndexedDB entries) and save again`,
      );
    const sealed = seal(await this.keys(), input.state, boundTo(input.accountId, input.name));
    const where = and(eq(profiles.accountId, input.accountId), eq(profiles.name, input.name));
    const fields = { sealed, ...summary, savedBy: input.savedBy };
    for (;;) {
      const saved = await this.db.transaction(async (tx) => {
        const [before] = await tx
          .select({ version: profiles.version, updatedAt: profiles.updatedAt, savedBy: profiles.savedBy })
          .from(profiles)
          .where(where)
          .for("update");
        if (!before) {
          const [{ n } = { n: 0 }] = await tx
            .select({ n: count() })
            .from(profiles)
            .where(eq(profiles.accountId, input.accountId));
          if (n >= input.maxPerAccount)
            throw new ProfileLimitReached(
              `this account keeps ${n} profiles, the most it may; delete one (DELETE /web/v1/profiles/{name}) first`,
            );
          const [row] = await tx
            .insert(profiles)
            .values({ accountId: input.accountId, name: input.name, ...fields, version: 1 })
            .onConflictDoNothing()
            .returning();
          // Another made it at this moment: save again over it.
          return row ? { row } : undefined;
        }
        const [row] = await tx
          .update(profiles)
          .set({ ...fields, version: before.version + 1, updatedAt: new Date() })
          .where(where)
          .returning();
        return row ? { row, before } : undefined;
      });
      if (!saved) continue;
      const { row, before } = saved;
      return {
        ...info(row),
        ...(before && before.version !== input.knownVersion
          ? { overwrote: { version: before.version, savedAt: before.updatedAt, savedBy: before.savedBy } }
          : {}),
      };
    }
  }

  /** An account's profiles by name, `limit` at a time after the name `after`. */
  async list(accountId: string, limit: number, after?: string): Promise<ProfileInfo[]> {
    const rows = await this.db
      .select()
      .from(profiles)
      .where(
        and(eq(profiles.accountId, accountId), after === undefined ? undefined : gt(profiles.name, after)),
      )
      .orderBy(asc(profiles.name))
      .limit(limit);
    return rows.map(info);
  }

  async remove(accountId: string, name: string): Promise<boolean> {
    const gone = await this.db
      .delete(profiles)
      .where(and(eq(profiles.accountId, accountId), eq(profiles.name, name)))
      .returning({ name: profiles.name });
    return gone.length > 0;
  }

  /**
   * Seal again with the current key every profile sealed with another (after a key rotation), so the old
   * key can be dropped. Says how many were sealed again and which could not be opened (their key is not in
   * the ring: they stay as they are).
   */
  async reseal(): Promise<{ resealed: number; unopened: { accountId: string; name: string }[] }> {
    const ring = await this.keys();
    const rows = await this.db
      .select({ accountId: profiles.accountId, name: profiles.name, sealed: profiles.sealed })
      .from(profiles);
    let resealed = 0;
    const unopened: { accountId: string; name: string }[] = [];
    for (const r of rows) {
      if (sealedWith(r.sealed) === ring.current.id) continue;
      const bound = boundTo(r.accountId, r.name);
      let plain: string;
      try {
        plain = open(ring, r.sealed, bound);
      } catch {
        unopened.push({ accountId: r.accountId, name: r.name });
        continue;
      }
      const again = seal(ring, plain, bound);
      // Only if nobody saved it meanwhile (their save is sealed with the current key already).
      const done = await this.db
        .update(profiles)
        .set({ sealed: again })
        .where(
          and(eq(profiles.accountId, r.accountId), eq(profiles.name, r.name), eq(profiles.sealed, r.sealed)),
        )
        .returning({ name: profiles.name });
      resealed += done.length;
    }
    return { resealed, unopened };
  }
}

function info(row: typeof profiles.$inferSelect): ProfileInfo {
  return {
    name: row.name,
    version: row.version,
    bytes: row.bytes,
    cookies: row.cookies,
    sites: row.sites,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** A deployment's profile store; its keys are read (or, embedded, made) on first use. */
export function profileStoreFrom(config: Pick<Config, "PROFILE_KEYS" | "DATA_DIR">, db: Db): ProfileStore {
  let ring: Promise<KeyRing> | undefined;
  return new ProfileStore(db, () => {
    ring ??= keyRingFrom(config);
    return ring;
  });
}
