import { type Action, MAX_UPLOAD_BYTES } from "@browserfleet/contracts";
import type { Artifacts } from "../answers/artifacts.ts";
import { fileOfLink } from "../answers/artifacts.ts";
import { ApiError } from "../errors.ts";

/**
 * An act's upload actions as a worker takes them: each file link replaced by the file's bytes (a link this
 * api gave out, valid and not expired), and all files of the act together at most MAX_UPLOAD_BYTES. A bad
 * link or too many bytes is a 400 naming the field, before anything is charged.
 */
export async function resolveUploads(artifacts: Artifacts, actions: Action[]): Promise<Action[]> {
  let total = 0;
  const out: Action[] = [];
  for (const [i, a] of actions.entries()) {
    if (!("upload" in a)) {
      out.push(a);
      continue;
    }
    const files = [];
    for (const [j, f] of a.upload.files.entries()) {
      const field = `actions.${i}.upload.files.${j}`;
      if ("data" in f) {
        total += Buffer.byteLength(f.data, "base64");
        files.push(f);
      } else {
        const file = await fileOfLink(artifacts, f.url).catch(() => undefined);
        if (!file)
          throw new ApiError(
            "invalid_request",
            `${field}.url is not a file link of this api that is still valid: give a link from an earlier answer (binaryAs url) before it expires, or the file's bytes as data`,
            [{ field: `${field}.url`, message: "not a valid file link of this api" }],
          );
        total += file.body.length;
        files.push({ name: f.name ?? file.name, type: file.contentType, data: file.body.toString("base64") });
      }
      if (total > MAX_UPLOAD_BYTES)
        throw new ApiError(
          "invalid_request",
          `the files of this act come to more than ${MAX_UPLOAD_BYTES} bytes, the most one act uploads; upload them over several acts`,
          [{ field: `${field}`, message: `past ${MAX_UPLOAD_BYTES} bytes of files in one act` }],
        );
    }
    out.push({ upload: { ...a.upload, files } });
  }
  return out;
}
