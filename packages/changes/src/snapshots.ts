import { type Db, schema } from "@browserfleet/db";
import { and, eq, lt } from "drizzle-orm";
import type { Snapshot } from "./compare.ts";

const { pageSnapshots } = schema;

/** Each account's last render of each URL, kept for the changes format. */
export class PageSnapshots {
  constructor(private readonly db: Db) {}

  /** Keep `current` as the account's last render of `url`; the one it replaces, if any. */
  async swap(accountId: string, url: string, current: Snapshot): Promise<Snapshot | undefined> {
    return this.db.transaction(async (tx) => {
      const where = and(eq(pageSnapshots.accountId, accountId), eq(pageSnapshots.url, url));
      // Locked, so two renders of one URL at once compare in turn, each with the one before it.
      const [previous] = await tx.select().from(pageSnapshots).where(where).for("update");
      const row = {
        markdown: current.markdown,
        json: current.json ?? null,
        statusCode: current.statusCode,
        renderedAt: current.at,
      };
      if (previous) await tx.update(pageSnapshots).set(row).where(where);
      else
        await tx
          .insert(pageSnapshots)
          .values({ accountId, url, ...row })
          .onConflictDoUpdate({
            target: [pageSnapshots.accountId, pageSnapshots.url],
            set: row,
          });
      return previous
        ? {
            markdown: previous.markdown,
            ...(previous.json !== null ? { json: previous.json } : {}),
            statusCode: previous.statusCode,
            at: previous.renderedAt,
          }
        : undefined;
    });
  }

  /** Forget renders older than `before`. Returns how many. */
  async sweep(before: Date): Promise<number> {
    const gone = await this.db
      .delete(pageSnapshots)
      .where(lt(pageSnapshots.renderedAt, before))
      .returning({ url: pageSnapshots.url });
    return gone.length;
  }
}
