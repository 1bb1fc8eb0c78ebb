import { randomBytes } from "node:crypto";
import type { Config } from "@browserfleet/config";
import type { WebhookSecretResponse } from "@browserfleet/contracts";
import { type Db, schema } from "@browserfleet/db";
import { type KeyRing, keyRingFrom, open, seal } from "@browserfleet/profiles";
import { eq } from "drizzle-orm";

const { webhookSecrets } = schema;
type Row = typeof webhookSecrets.$inferSelect;

/** How long a deliverer keeps an account's signing secrets before it reads them again. */
export const SIGNING_CACHE_MS = 5_000;

/** A new signing secret, as Standard Webhooks libraries take it: whsec_ and 32 random bytes in base64. */
const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`;
/** What a sealed secret is bound to: a row copied to another account does not open. */
const bound = (accountId: string) => `webhook-secret\n${accountId}`;

/**
 * Each account's webhook signing secret: made on first use, sealed at rest with the deployment's profile
 * keys (PROFILE_KEYS), rotated on request with the replaced one signing beside it for a while.
 */
export class WebhookSecrets {
  private readonly recent = new Map<string, { secrets: string[]; until: number }>();

  constructor(
    private readonly db: Db,
    private readonly keys: () => Promise<KeyRing>,
  ) {}

  private async row(accountId: string): Promise<Row> {
    const [found] = await this.db
      .select()
      .from(webhookSecrets)
      .where(eq(webhookSecrets.accountId, accountId));
    if (found) return found;
    // Two first uses at once: one insert wins, both read it.
    await this.db
      .insert(webhookSecrets)
      .values({ accountId, sealed: seal(await this.keys(), newSecret(), bound(accountId)) })
      .onConflictDoNothing();
    const [made] = await this.db.select().from(webhookSecrets).where(eq(webhookSecrets.accountId, accountId));
    if (!made) throw new Error(`the webhook secret of ${accountId} could not be made`);
    return made;
  }

  private async view(accountId: string, row: Row, now = Date.now()): Promise<WebhookSecretResponse> {
    const ring = await this.keys();
    const previous =
      row.previousSealed && row.previousUntil && row.previousUntil.getTime() > now
        ? {
            secret: open(ring, row.previousSealed, bound(accountId)),
            createdAt: (row.previousCreatedAt ?? row.createdAt).toISOString(),
            signsUntil: row.previousUntil.toISOString(),
          }
        : null;
    return {
      secret: open(ring, row.sealed, bound(accountId)),
      createdAt: row.createdAt.toISOString(),
      previous,
    };
  }

  /** The account's secret, made now if it has none. */
  async get(accountId: string): Promise<WebhookSecretResponse> {
    return this.view(accountId, await this.row(accountId));
  }

  /** A new secret; the one it replaces keeps signing for `overlapMs`. */
  async rotate(accountId: string, overlapMs: number): Promise<WebhookSecretResponse> {
    const current = await this.row(accountId);
    const now = new Date();
    const [row] = await this.db
      .update(webhookSecrets)
      .set({
        sealed: seal(await this.keys(), newSecret(), bound(accountId)),
        createdAt: now,
        previousSealed: current.sealed,
        previousCreatedAt: current.createdAt,
        previousUntil: new Date(now.getTime() + overlapMs),
      })
      .where(eq(webhookSecrets.accountId, accountId))
      .returning();
    if (!row) throw new Error(`the webhook secret of ${accountId} could not be rotated`);
    return this.view(accountId, row, now.getTime());
  }

  /**
   * The secrets that sign a delivery now: the current one, and the replaced one while it still signs.
   * Remembered for SIGNING_CACHE_MS, so a burst of deliveries reads and opens them once; a rotation is seen
   * within that (the replaced secret keeps signing meanwhile, so no receiver loses a delivery to it).
   */
  async signing(accountId: string, now = Date.now()): Promise<string[]> {
    const hit = this.recent.get(accountId);
    if (hit && hit.until > now) return hit.secrets;
    const v = await this.get(accountId);
    const secrets = v.previous ? [v.secret, v.previous.secret] : [v.secret];
    this.recent.set(accountId, { secrets, until: now + SIGNING_CACHE_MS });
    if (this.recent.size > 10_000) this.recent.delete(this.recent.keys().next().value as string);
    return secrets;
  }
}

/** The secrets, sealed with the deployment's profile keys (read once, when first needed). */
export function webhookSecretsFrom(
  config: Pick<Config, "PROFILE_KEYS" | "DATA_DIR">,
  db: Db,
): WebhookSecrets {
  let ring: Promise<KeyRing> | undefined;
  return new WebhookSecrets(db, () => {
    ring ??= keyRingFrom(config);
    return ring;
  });
}
