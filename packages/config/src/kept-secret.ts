import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { resolve } from "node:path";

/**
 * The embedded default's secret of one kind (`fileName` in DATA_DIR): made once, kept so what it signs or
 * seals outlives a restart, and shared by the programs one `npm start` runs. A deployment sets it instead.
 */
export async function keptSecret(dataDir: string, fileName: string): Promise<string> {
  const path = resolve(dataDir, fileName);
  const existing = (await readFile(path, "utf8").catch(() => "")).trim();
  if (existing.length >= 32) return existing;
  // Written whole and renamed into place: a reader never sees it half written. Two processes making one
  // at once: the last rename wins and both read back what is there.
  await mkdir(resolve(dataDir), { recursive: true });
  const tmp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  await writeFile(tmp, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
  await rename(tmp, path);
  const kept = (await readFile(path, "utf8")).trim();
  if (kept.length < 32) throw new Error(`${path} holds no usable secret`);
  return kept;
}
