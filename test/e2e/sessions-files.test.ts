/**
 * Files in a session: what a click downloads comes back with the act (bytes, type, size, and a document
 * as markdown), by link with binaryAs url; what an upload action sets on a file input is read by the page,
 * given inline or by a link of an earlier download.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { MAX_UPLOAD_BYTES } from "@browserfleet/contracts";
import { callTool, connectMcp, type Json } from "../helpers/mcp-client.ts";
import { type Stack, startStack } from "../helpers/stack.ts";

let stack: Stack;
before(async () => {
  stack = await startStack({ slots: 2, jobs: false });
});
after(async () => {
  await stack?.stop();
});

const auth = () => ({ authorization: `Bearer ${stack.key}` });
const b64 = (s: string) => Buffer.from(s).toString("base64");

async function session(path: string): Promise<string> {
  const r = await stack.post("/web/v1/session", { url: `${stack.site.url}${path}` }, auth());
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.sessionId;
}

async function act(id: string, actions: Json[], extra: Json = {}) {
  return stack.post("/web/v1/act", { sessionId: id, actions, formats: ["markdown"], ...extra }, auth());
}

describe("downloads", () => {
  test("a click on an attachment: the file with its bytes, type and size, a document also as markdown", async () => {
    const id = await session("/files");
    try {
      const pdf = await act(id, [{ click: { ref: "#invoice" } }]);
      assert.equal(pdf.status, 200, JSON.stringify(pdf.body));
      assert.equal(pdf.body.success, true, JSON.stringify(pdf.body.actions));
      assert.equal(pdf.body.downloads?.length, 1, JSON.stringify(pdf.body));
      const [invoice] = pdf.body.downloads;
      assert.equal(invoice.name, "invoice.pdf");
      assert.equal(invoice.type, "application/pdf");
      assert.equal(invoice.url, `${stack.site.url}/files/invoice.pdf`);
      assert.deepEqual([invoice.tab, invoice.during], ["t1", 0]);
      const bytes = Buffer.from(invoice.data, "base64");
      assert.equal(bytes.subarray(0, 5).toString(), "%PDF-");
      assert.equal(invoice.size, bytes.length);
      assert.match(
        invoice.markdown ?? JSON.stringify({ ...invoice, data: undefined }),
        /The first paragraph of page 1/,
      );
      assert.match(
        pdf.body.data.markdown,
        /Documents/,
        "the page is still there: a download is no navigation",
      );

      const both = await act(id, [{ click: { ref: "#orders" } }, { click: { ref: "#export" } }]);
      const [csv, notes] = both.body.downloads;
      assert.equal(csv.name, "orders.csv");
      assert.match(csv.markdown, /Alice/);
      assert.deepEqual(
        [notes.name, notes.during],
        ["notes.txt", 1],
        "a file made in the page, by the second action",
      );
      assert.equal(Buffer.from(notes.data, "base64").toString(), "Notes\nCall the supplier on Monday\n");
      assert.equal(notes.markdown, undefined, "a text file is no document");

      const big = await act(id, [{ click: { ref: "#backup" } }]);
      assert.equal(big.body.downloads[0].name, "backup.bin");
      assert.equal(big.body.downloads[0].error.code, "download_too_large");
      assert.equal(big.body.downloads[0].data, undefined);

      const none = await act(id, [{ press: "Tab" }]);
      assert.equal(none.body.downloads, undefined, "each download is reported once");
    } finally {
      await stack.call("DELETE", `/web/v1/session/${id}`, auth());
    }
  });

  test("binaryAs url: the file by a link that works without a key; that link uploads it again", async () => {
    const files = await session("/files");
    const form = await session("/upload");
    try {
      const r = await act(files, [{ click: { ref: "#invoice" } }], { binaryAs: "url" });
      const [invoice] = r.body.downloads;
      assert.match(invoice.data, /\/web\/v1\/artifacts\/.+\.pdf\?e=\d+&s=/);
      assert.ok(r.body.metadata.filesExpireAt);
      const fetched = await fetch(invoice.data);
      assert.equal(fetched.status, 200);
      assert.equal(fetched.headers.get("content-type"), "application/pdf");
      const bytes = Buffer.from(await fetched.arrayBuffer());
      assert.equal(bytes.length, invoice.size);

      const up = await act(form, [
        { upload: { ref: "#avatar", files: [{ url: invoice.data, name: "invoice.pdf" }] } },
      ]);
      assert.equal(up.status, 200, JSON.stringify(up.body));
      assert.equal(up.body.success, true, JSON.stringify(up.body.actions));
      assert.match(
        up.body.data.markdown,
        new RegExp(`avatar: invoice.pdf \\(${invoice.size} bytes, application/pdf\\): %PDF-`),
      );

      const tampered = invoice.data.replace(
        /s=([A-Za-z0-9_-])/,
        (_m: string, c: string) => `s=${c === "A" ? "B" : "A"}`,
      );
      const refused = await act(form, [{ upload: { ref: "#avatar", files: [{ url: tampered }] } }]);
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.error.details[0].field, "actions.0.upload.files.0.url");
      assert.equal(refused.headers.get("x-charged-usd"), null, "a refused act costs nothing");
    } finally {
      await stack.call("DELETE", `/web/v1/session/${files}`, auth());
      await stack.call("DELETE", `/web/v1/session/${form}`, auth());
    }
  });
});

describe("uploads", () => {
  test("files given inline are read by the page; a wrong input or too many files fail the action, saying why", async () => {
    const id = await session("/upload");
    try {
      const r = await act(id, [
        {
          upload: {
            ref: "#docs",
            files: [
              { name: "draft.txt", type: "text/plain", data: b64("First draft\nsecond line") },
              { name: "table.csv", data: b64("name,score\nAlice,30\n") },
            ],
          },
        },
      ]);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.success, true, JSON.stringify(r.body.actions));
      assert.match(
        r.body.data.markdown,
        /docs: draft\.txt \(23 bytes, text\/plain\): First draft; table\.csv \(20 bytes, text\/csv\): name,score/,
      );

      // A styled button that opens a hidden file input: clicked, and its file chooser answered.
      const photo = await act(id, [
        { upload: { ref: "#photo-button", files: [{ name: "me.png", data: b64("PNG?") }] } },
      ]);
      assert.equal(photo.body.success, true, JSON.stringify(photo.body.actions));
      assert.match(photo.body.data.markdown, /photo-input: me\.png \(4 bytes, image\/png\)/);

      const wrong = await act(id, [{ upload: { ref: "#name", files: [{ name: "a.txt", data: b64("a") }] } }]);
      assert.equal(wrong.body.actions[0].status, "failed");
      assert.equal(wrong.body.actions[0].error.code, "not_a_file_input");
      const two = await act(id, [
        {
          upload: {
            ref: "#avatar",
            files: [
              { name: "a.png", data: b64("a") },
              { name: "b.png", data: b64("b") },
            ],
          },
        },
      ]);
      assert.equal(two.body.actions[0].error.code, "too_many_files", JSON.stringify(two.body.actions));

      const tooMuch = await act(id, [
        {
          upload: {
            ref: "#docs",
            files: [{ name: "big.bin", data: Buffer.alloc(MAX_UPLOAD_BYTES + 1).toString("base64") }],
          },
        },
      ]);
      assert.equal(tooMuch.status, 400, JSON.stringify(tooMuch.body).slice(0, 300));
      assert.equal(tooMuch.body.error.details[0].field, "actions.0.upload.files.0");
      const notBase64 = await act(id, [
        { upload: { ref: "#docs", files: [{ name: "x", data: "not base64!" }] } },
      ]);
      assert.equal(notBase64.status, 400);
      assert.equal(notBase64.body.error.details[0].field, "actions.0.upload.files.0.data");
    } finally {
      await stack.call("DELETE", `/web/v1/session/${id}`, auth());
    }
  });

  test("over MCP: web_act uploads a file, and a download comes as a resource link", async () => {
    const client = await connectMcp(stack.api.url, auth());
    try {
      const opened = await callTool(client, "web_session_open", { url: `${stack.site.url}/upload` });
      const sessionId = opened.body.sessionId;
      const up = await callTool(client, "web_act", {
        sessionId,
        actions: [{ upload: { ref: "#docs", files: [{ name: "mcp.txt", data: b64("from MCP") }] } }],
        formats: ["markdown"],
      });
      assert.equal(up.isError, false, JSON.stringify(up.body));
      assert.match(up.body.data.markdown, /docs: mcp\.txt \(8 bytes, text\/plain\): from MCP/);
      // A downloaded file comes as a resource link, not as base64 in the model's context.
      const down = await client.callTool({
        name: "web_act",
        arguments: {
          sessionId,
          actions: [{ navigate: { url: `${stack.site.url}/files` } }, { click: { ref: "#export" } }],
        },
      });
      const content = down.content as Json[];
      const [notes] = JSON.parse(content[0].text).downloads;
      assert.equal(notes.name, "notes.txt");
      assert.match(notes.data, /^http.*\/web\/v1\/artifacts\/.+\.txt\?e=/);
      const link = content.find((c) => c.type === "resource_link");
      assert.deepEqual([link?.uri, link?.name, link?.mimeType], [notes.data, "notes.txt", "text/plain"]);
      assert.equal(await (await fetch(notes.data)).text(), "Notes\nCall the supplier on Monday\n");
      await callTool(client, "web_session_close", { sessionId });
    } finally {
      await client.close();
    }
  });
});
