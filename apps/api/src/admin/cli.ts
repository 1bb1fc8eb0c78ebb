/**
 * `npm run admin -- <command>`: accounts, API keys, balances, and sealing profiles again after a key rotation. Amounts are in US dollars.
 * Output is plain text, one fact per line; `create-key` prints the new key alone on its last line.
 */
import { parseArgs } from "node:util";
import {
  accountBalance,
  BillingError,
  createAccount,
  getAccount,
  issueKey,
  listKeys,
  revokeKey,
  topUp,
} from "@browserfleet/billing";
import { loadConfig } from "@browserfleet/config";
import { connectDb, locateDatabase, migrateDb } from "@browserfleet/db";
import { MICROS_PER_USD, usd } from "@browserfleet/pricing";
import { profileStoreFrom } from "@browserfleet/profiles";

const HELP = `usage: npm run admin -- <command> [options]

  create-account [--name NAME] [--balance USD]     a new account; prints its id
  create-key [--account ID] [--balance USD] [--label TEXT]
                                                   a new API key (on a new account unless --account);
                                                   the key is printed once, alone on the last line
  revoke-key <KEY_ID | KEY>                        revoke a key at once
  top-up <ACCOUNT_ID> <USD>                        add prepaid balance
  balance <ACCOUNT_ID>                             show the balance
  show <ACCOUNT_ID>                                the account, its balance and its keys
  profiles-reseal                                  after a PROFILE_KEYS rotation: seal every profile with
                                                   the first key, so the older ones can be dropped

The database is DATABASE_URL, or the embedded PostgreSQL of \`npm start\` (DATA_DIR/postgres).`;

class UsageError extends Error {}

function dollarsToMicros(text: string | undefined, what: string): number {
  if (text === undefined) throw new UsageError(`${what} is required`);
  if (!/^\d+(\.\d{1,6})?$/.test(text)) throw new UsageError(`${what} must be a dollar amount like 5 or 0.25`);
  const [whole = "0", frac = ""] = text.split(".");
  return Number(whole) * MICROS_PER_USD + Number(frac.padEnd(6, "0"));
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: "string" },
      balance: { type: "string" },
      account: { type: "string" },
      label: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, ...args] = positionals;
  if (!command || values.help) {
    console.log(HELP);
    return;
  }
  const config = loadConfig();
  const where = await locateDatabase(config);
  await migrateDb(where.url);
  const { db, close } = connectDb(where.url, { max: 2, name: "admin" });
  try {
    switch (command) {
      case "create-account": {
        const balance = values.balance ? dollarsToMicros(values.balance, "--balance") : 0;
        const { accountId } = await createAccount(db, { name: values.name, balanceMicros: balance });
        console.log(`account ${accountId}`);
        console.log(`balance ${usd(balance)}`);
        break;
      }
      case "create-key": {
        let accountId = values.account;
        if (accountId) {
          if (values.balance) await topUp(db, accountId, dollarsToMicros(values.balance, "--balance"));
        } else {
          const balance = values.balance ? dollarsToMicros(values.balance, "--balance") : 0;
          accountId = (await createAccount(db, { name: values.name, balanceMicros: balance })).accountId;
        }
        const issued = await issueKey(db, accountId, values.label);
        const account = await getAccount(db, accountId);
        console.log(`account ${accountId}`);
        console.log(`balance ${usd(account?.balanceMicros ?? 0)}`);
        console.log(`key id ${issued.keyId} (shown once below; only its hash is stored)`);
        console.log(issued.key);
        break;
      }
      case "revoke-key": {
        const [target] = args;
        if (!target) throw new UsageError("revoke-key needs a key id or the key");
        if (!(await revokeKey(db, target))) throw new BillingError("not_found", `no live key ${target}`);
        console.log(`revoked ${target.startsWith("bf_live_") ? `${target.slice(0, 12)}…` : target}`);
        break;
      }
      case "top-up": {
        const [accountId, amount] = args;
        if (!accountId) throw new UsageError("top-up needs an account id and an amount");
        const balance = await topUp(db, accountId, dollarsToMicros(amount, "the amount"));
        console.log(`account ${accountId}`);
        console.log(`balance ${usd(balance)}`);
        break;
      }
      case "balance":
      case "show": {
        const [accountId] = args;
        if (!accountId) throw new UsageError(`${command} needs an account id`);
        const account = await getAccount(db, accountId);
        const funds = await accountBalance(db, accountId);
        if (!account || !funds) throw new BillingError("not_found", `no account ${accountId}`);
        console.log(`account ${account.id}${account.name ? ` (${account.name})` : ""}`);
        console.log(`balance ${usd(funds.balanceMicros)}`);
        if (funds.heldMicros > 0) console.log(`held ${usd(funds.heldMicros)} (calls still running)`);
        if (command === "show") {
          for (const k of await listKeys(db, accountId)) {
            const state = k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : "live";
            console.log(`key ${k.keyId} ${k.prefix}… ${state}${k.label ? ` "${k.label}"` : ""}`);
          }
        }
        break;
      }
      case "profiles-reseal": {
        const { resealed, unopened } = await profileStoreFrom(config, db).reseal();
        console.log(`resealed ${resealed} profile(s) with the first key of PROFILE_KEYS`);
        for (const u of unopened)
          console.log(
            `not opened: profile ${u.name} of account ${u.accountId} (its key is not in PROFILE_KEYS)`,
          );
        if (unopened.length > 0) process.exitCode = 1;
        break;
      }
      default:
        throw new UsageError(`unknown command ${command}`);
    }
  } finally {
    await close();
    await where.stop();
  }
}

main(process.argv.slice(2)).catch((err) => {
  if (err instanceof UsageError) console.error(`${err.message}\n\n${HELP}`);
  else if (err instanceof BillingError) console.error(err.message);
  else console.error(`admin failed: ${(err as Error).stack ?? err}`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
