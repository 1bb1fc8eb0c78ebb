/**
 * A start that fails says why in one line a user acts on: a program that cannot be run is named with what
 * to do, never as a bare `spawn … EACCES`.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { PostgresSetupError } from "@browserfleet/db";
import { explain } from "../../scripts/start-errors.ts";

/** The error Node gives for running `file`. */
function spawnError(file: string): Promise<Error> {
  return new Promise((resolve) => spawn(file, [], { stdio: "ignore" }).once("error", resolve));
}

describe("start-up failures in one line", () => {
  const dir = mkdtempSync(join(tmpdir(), "fleet-start-errors-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("a program that cannot be run is named, with the fix", async () => {
    const file = join(dir, "initdb");
    writeFileSync(file, "not a program");
    chmodSync(file, 0o644);
    const line = explain(await spawnError(file), undefined, "PostgreSQL");
    assert.match(
      line,
      new RegExp(`^PostgreSQL: ${file} cannot be run by this user \\(permission denied\\): check the mode`),
    );
    assert.doesNotMatch(line, /spawn/);
  });

  it("a program that is missing is named, with the fix", async () => {
    const line = explain(await spawnError(join(dir, "nowhere", "postgres")), undefined, "PostgreSQL");
    assert.match(line, /was not found: reinstall the dependencies with `npm ci`/);
    assert.doesNotMatch(line, /spawn/);
  });

  it("the embedded PostgreSQL's own explanation is the line", () => {
    const message =
      "PostgreSQL runs as user postgres (it refuses root), who cannot enter /root on the way to /root/x/.data: set DATA_DIR to a folder postgres can reach, or run `chmod o+x /root`";
    assert.equal(explain(new PostgresSetupError(message), undefined, "PostgreSQL"), message);
  });
});
