/**
 * Faults under paid load with PostgreSQL and NATS in containers (the images built here, `npm run images`,
 * driven through testcontainers over podman's API): keyed callers scrape (rendered and cached) through
 * the api while the test kills PostgreSQL's container (SIGKILL, then started again on its data), stops it
 * and starts it, and kills NATS's container and starts it again on its JetStream folder. After each, with
 * the api closed (its balance leases written and given back): no hold is left open, and each account's
 * balance went down by exactly what its answered calls were charged. The error rate and p99 of each run
 * are printed with the test.
 *
 * Skips when podman is missing (scripts/setup.mjs installs it on Debian for `npm test`).
 */
import { spawnSync } from "node:child_process";
import { chown, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startApi } from "@browserfleet/api";
import { type BrowserWorker, startBrowserWorker } from "@browserfleet/browser";
import { connectBus, freePort } from "@browserfleet/bus";
import { type Config, loadConfig } from "@browserfleet/config";
import { connectDb, type Database, migrateDb } from "@browserfleet/db";
import { buildImages, imageName } from "../../scripts/images.ts";
import { type FixtureSite, startFixtureSite } from "../fixture-site/server.ts";
import { type PaidLoad, paidLoad, report } from "../helpers/paid-load.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { type Container, runContainer } from "./run-container.ts";
import { type ContainerRuntime, startContainerRuntime } from "./runtime.ts";

const podmanThere = spawnSync("podman", ["--version"], { stdio: "ignore" }).status === 0;
const ALLOW = "127.0.0.1/32";

describe("faults under paid load, PostgreSQL and NATS in containers", {
  skip: !podmanThere && "podman is not installed",
  timeout: 900_000,
}, () => {
  let dir: string;
  let runtime: ContainerRuntime;
  let site: FixtureSite;
  let pg: Container;
  let nats: Container;
  let db: Database;
  let config: Config;
  let worker: BrowserWorker;
  let load: PaidLoad;
  let pgUrl: string;
  let natsUrl: string;

  before(async () => {
    buildImages(["postgres", "nats"], { quiet: true });
    runtime = await startContainerRuntime();
    dir = await mkdtemp(join(tmpdir(), "bf-container-faults-"));
    site = await startFixtureSite();
    const [pgPort, natsPort] = [await freePort(), await freePort()];
    // PostgreSQL as the chart runs it (its files in the container, kept across a restart of it).
    pg = await runContainer(`bf-faults-postgres-${process.pid}`, imageName("postgres"), {
      env: {
        POSTGRES_USER: "fleet",
        POSTGRES_DB: "fleet",
        POSTGRES_PASSWORD: "faults",
        PGPORT: String(pgPort),
      },
      readOnlyRoot: false,
    });
    pgUrl = `postgres://fleet:faults@127.0.0.1:${pgPort}/fleet`;
    // NATS with JetStream on a folder of the host's, owned by the image's user (10001), as a volume is.
    const js = join(dir, "jetstream");
    await mkdir(js);
    await chown(js, 10001, 10001);
    nats = await runContainer(`bf-faults-nats-${process.pid}`, imageName("nats"), {
      command: ["-js", "-a", "127.0.0.1", "-p", String(natsPort), "-sd", "/data"],
      mounts: { [js]: "/data" },
    });
    natsUrl = `nats://127.0.0.1:${natsPort}`;
    await waitFor("PostgreSQL in its container", () => migrateDb(pgUrl).then(() => true), 120_000, 500);
    await waitFor(
      "NATS in its container",
      () => connectBus({ servers: natsUrl, name: "faults-test" }).then((nc) => nc.close().then(() => true)),
      60_000,
      200,
    );
    db = connectDb(pgUrl, { max: 2 });
    config = loadConfig({
      PORT: "0",
      HOST: "127.0.0.1",
      FLEET_ALLOW_PRIVATE: ALLOW,
      DATA_DIR: join(dir, "data"),
    });
    load = paidLoad(db, site.url);
    worker = await startBrowserWorker({
      natsUrl,
      slots: 3,
      ackWaitMs: 10_000,
      queueMax: 100,
      allowPrivate: ALLOW,
      metricsPort: 0,
    });
  });

  after(async () => {
    await worker?.stop();
    await db?.close();
    await pg?.remove();
    await nats?.remove();
    await runtime?.stop();
    await site?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const startApiHere = () => startApi({ ...config, NATS_URL: natsUrl, DATABASE_URL: pgUrl });

  /** Paid load through an api while `fault` runs; then the ledger reconciled per account. */
  async function faultUnderLoad(
    t: { diagnostic(s: string): void },
    what: string,
    fault: () => Promise<void>,
  ) {
    const accounts = await load.newAccounts(3);
    const api = await startApiHere();
    const outcomes = await load.underLoad(api, accounts, fault);
    await api.close(10_000);
    report(t, what, outcomes);
    await load.assertReconciled(accounts, outcomes, what);
  }

  it("PostgreSQL's container killed (SIGKILL) and started again under paid load: every answered call charged once, every failed one nothing", async (t) => {
    await faultUnderLoad(t, "PostgreSQL container killed", async () => {
      await pg.restart(0);
    });
  });

  it("PostgreSQL's container stopped and started under paid load: the same", async (t) => {
    await faultUnderLoad(t, "PostgreSQL container stopped", async () => {
      await pg.stop(10);
      await new Promise((r) => setTimeout(r, 1_500));
      await pg.start();
    });
  });

  it("NATS's container killed (SIGKILL) and started again on its JetStream folder under paid load: the same", async (t) => {
    await faultUnderLoad(t, "NATS container killed", async () => {
      await nats.restart(0);
    });
  });
});
