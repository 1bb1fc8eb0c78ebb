import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type ArtifactStore, CONTENT_TYPES, hourStart, KEY_PATTERN, type StoredFile } from "./store.ts";

/** Files in a folder (the embedded default: DATA_DIR/artifacts). One api replica only: use S3 for more. */
export function fileStore(dir: string): ArtifactStore {
  const pathOf = (key: string) => {
    if (!KEY_PATTERN.test(key)) throw new Error(`not an artifact key: ${key}`);
    return join(dir, key);
  };
  return {
    kind: "files",
    async put(key, body) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      // Written whole, then renamed: a reader never sees half a file.
      const tmp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
      await writeFile(tmp, body);
      await rename(tmp, path);
    },
    async get(key): Promise<StoredFile | undefined> {
      const m = KEY_PATTERN.exec(key);
      if (!m) return undefined;
      try {
        return {
          body: await readFile(pathOf(key)),
          contentType: CONTENT_TYPES[m[3]!] ?? "application/octet-stream",
        };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw err;
      }
    },
    async has(key) {
      if (!KEY_PATTERN.test(key)) return false;
      return stat(pathOf(key)).then(
        (st) => st.isFile(),
        (err: NodeJS.ErrnoException) => {
          if (err.code === "ENOENT" || err.code === "ENOTDIR") return false;
          throw err;
        },
      );
    },
    async sweep(now) {
      let gone = 0;
      const hours = await readdir(dir).catch(() => [] as string[]);
      for (const h of hours) {
        const start = hourStart(h);
        if (Number.isNaN(start) || start > now.getTime()) continue;
        gone += (await readdir(join(dir, h)).catch(() => [] as string[])).length;
        await rm(join(dir, h), { recursive: true, force: true });
      }
      return gone;
    },
    async close() {},
  };
}
