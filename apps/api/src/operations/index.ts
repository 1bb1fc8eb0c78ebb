import { account } from "./account.ts";
import { accountJobs } from "./account-jobs.ts";
import { accountSessions } from "./account-sessions.ts";
import { accountTransactions } from "./account-transactions.ts";
import { accountUsage } from "./account-usage.ts";
import { webhookSecret, webhookSecretRotate } from "./account-webhook-secret.ts";
import { act } from "./act.ts";
import { batchCancel } from "./batch-cancel.ts";
import { batchStatus } from "./batch-status.ts";
import { crawl } from "./crawl.ts";
import { crawlCancel } from "./crawl-cancel.ts";
import { crawlStatus } from "./crawl-status.ts";
import { feedback } from "./feedback.ts";
import { map } from "./map.ts";
import type { AnyOperation } from "./operation.ts";
import { prices } from "./prices.ts";
import { profileDelete } from "./profile-delete.ts";
import { profiles } from "./profiles.ts";
import { proxies } from "./proxies.ts";
import { scrape } from "./scrape.ts";
import { scrapeBatch } from "./scrape-batch.ts";
import { search } from "./search.ts";
import { searchProviderList } from "./search-providers.ts";
import { session } from "./session.ts";
import { sessionClose } from "./session-close.ts";

export type { AnyOperation, Operation, Priced } from "./operation.ts";

/**
 * Every operation of the interface, in the order the MCP tool list, OpenAPI and llms.txt show them. A new
 * operation is one file in this folder and one line here.
 */
export const OPERATIONS: readonly AnyOperation[] = [
  scrape,
  session,
  act,
  sessionClose,
  scrapeBatch,
  batchStatus,
  batchCancel,
  map,
  crawl,
  crawlStatus,
  crawlCancel,
  feedback,
  search,
  searchProviderList,
  account,
  accountUsage,
  accountTransactions,
  accountSessions,
  accountJobs,
  webhookSecret,
  webhookSecretRotate,
  profiles,
  profileDelete,
  proxies,
  prices,
];

/** A priced operation: it has a price, a keyless allowance rule and a GET self-description. */
export type PricedOperation = AnyOperation & { priced: NonNullable<AnyOperation["priced"]> };

/** The priced operations, each described by GET on its path. */
export const PRICED_OPERATIONS: readonly PricedOperation[] = OPERATIONS.filter(
  (op): op is PricedOperation => op.priced !== undefined,
);
