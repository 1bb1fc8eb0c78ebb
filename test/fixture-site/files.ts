/**
 * Files going out and coming in, as real sites move them:
 *
 *   /files                 an account's documents: an invoice PDF and an orders CSV served as attachments
 *                          (Content-Disposition), a "Export notes" button that makes a text file in the page
 *                          (a Blob and an <a download>), and a link to a 6 MB backup
 *   /files/invoice.pdf     the 3-page "Quarterly Report" PDF as an attachment named invoice.pdf
 *   /files/orders.csv      a CSV attachment
 *   /files/backup.bin      6 MB of bytes as an attachment (past what a session keeps)
 *   /upload                a form with a multi-file input (#docs), a single-file one (#avatar), and a styled
 *                          "Choose photo" button that opens a hidden file input; #status says what the page
 *                          read from each chosen file (name, size, first line)
 */
import { documentsRoutes } from "./documents.ts";
import type { ExtraRoutes, Reply } from "./reply.ts";

const page = (title: string, body: string): Reply => ({
  status: 200,
  type: "text/html; charset=utf-8",
  body: `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`,
});

const attachment = (from: string, name: string): Reply | null => {
  const doc = documentsRoutes(from, new URLSearchParams(), "", "");
  return (
    doc && { ...doc, headers: { ...doc.headers, "Content-Disposition": `attachment; filename="${name}"` } }
  );
};

const FILES = `<h1>Documents</h1>
<ul>
<li><a href="/files/invoice.pdf" id="invoice">Invoice (PDF)</a></li>
<li><a href="/files/orders.csv" id="orders">Orders (CSV)</a></li>
<li><a href="/files/backup.bin" id="backup">Full backup</a></li>
</ul>
<button id="export" type="button">Export notes</button>
<script>
document.getElementById("export").onclick = () => {
  const blob = new Blob(["Notes\\nCall the supplier on Monday\\n"], { type: "text/plain" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = "notes.txt";
  document.body.appendChild(a);
  a.click();
};
</script>`;

const UPLOAD = `<h1>Attach files</h1>
<label>Documents <input type="file" id="docs" multiple></label>
<label>Avatar <input type="file" id="avatar" accept="image/*"></label>
<label>Name <input type="text" id="name"></label>
<input type="file" id="photo-input" hidden>
<button type="button" id="photo-button" class="upload-btn">Choose photo</button>
<p id="status">No file chosen</p>
<script>
const status = document.getElementById("status");
const describe = async (input) => {
  const parts = [];
  for (const f of input.files) {
    const text = await f.text();
    parts.push(f.name + " (" + f.size + " bytes, " + (f.type || "no type") + "): " + text.split("\\n")[0].slice(0, 60));
  }
  status.textContent = input.id + ": " + parts.join("; ");
};
for (const id of ["docs", "avatar", "photo-input"]) document.getElementById(id).addEventListener("change", (e) => describe(e.target));
document.getElementById("photo-button").onclick = () => document.getElementById("photo-input").click();
</script>`;

export const filesRoutes: ExtraRoutes = (path) => {
  switch (path) {
    case "/files":
      return page("Documents", FILES);
    case "/files/invoice.pdf":
      return attachment("/docs/report.pdf", "invoice.pdf");
    case "/files/orders.csv":
      return attachment("/docs/table.csv", "orders.csv");
    case "/files/backup.bin":
      return {
        status: 200,
        type: "application/octet-stream",
        headers: { "Content-Disposition": 'attachment; filename="backup.bin"' },
        body: Buffer.alloc(6 * 1024 * 1024, 7),
      };
    case "/upload":
      return page("Attach files", UPLOAD);
    default:
      return null;
  }
};
