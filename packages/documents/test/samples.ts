/**
 * Real documents built in memory with the libraries that write them (pdf-lib, docx, exceljs, jszip),
 * for the documents tests and the fixture site. No binary fixtures are checked in.
 */
import {
  Document,
  ExternalHyperlink,
  HeadingLevel,
  LevelFormat,
  Packer,
  Paragraph,
  Table,
  TableCell,
  TableRow,
  TextRun,
} from "docx";
import ExcelJS from "exceljs";
import JSZip from "jszip";
import { PDFDocument, StandardFonts } from "pdf-lib";

/** A PDF with a title and `pages` pages, each with a heading line and two paragraphs. */
export async function samplePdf(opts: { pages?: number; title?: string } = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  if (opts.title) doc.setTitle(opts.title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= (opts.pages ?? 3); n++) {
    const page = doc.addPage([612, 792]);
    page.drawText(`Chapter ${n}`, { x: 50, y: 720, size: 22, font });
    page.drawText(`The first paragraph of page ${n}.`, { x: 50, y: 670, size: 12, font });
    page.drawText(`It runs onto a second line.`, { x: 50, y: 655, size: 12, font });
    page.drawText(`A second paragraph on page ${n}.`, { x: 50, y: 610, size: 12, font });
  }
  return doc.save();
}

/**
 * A one-page PDF whose trailer names an /Encrypt dictionary (standard handler, revision 2) whose
 * user-password check fails for the empty password: readers must ask for a password.
 */
export function encryptedPdf(): Uint8Array {
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
    `<< /Filter /Standard /V 1 /R 2 /O <${"11".repeat(32)}> /U <${"22".repeat(32)}> /P -4 >>`,
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, "0")} 00000 n \n`;
  const id = "ab".repeat(16);
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Encrypt 4 0 R /ID [<${id}> <${id}>] >>\n`;
  out += `startxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, "latin1"));
}

const cell = (text: string) => new TableCell({ children: [new Paragraph(text)] });

/** A Word document: title property, headings, a bold run, a bullet list, a numbered list and a table. */
export async function sampleDocx(): Promise<Uint8Array> {
  const doc = new Document({
    title: "Annual Letter",
    numbering: {
      config: [
        {
          reference: "steps",
          levels: [{ level: 0, format: LevelFormat.DECIMAL, text: "%1.", alignment: "left" }],
        },
      ],
    },
    sections: [
      {
        children: [
          new Paragraph({ text: "Letter to Shareholders", heading: HeadingLevel.HEADING_1 }),
          new Paragraph({
            children: [
              new TextRun("This year was "),
              new TextRun({ text: "remarkable", bold: true }),
              new TextRun(" for everyone."),
            ],
          }),
          new Paragraph({ text: "Highlights", heading: HeadingLevel.HEADING_2 }),
          new Paragraph({ text: "Revenue grew", bullet: { level: 0 } }),
          new Paragraph({ text: "Costs fell", bullet: { level: 0 } }),
          new Paragraph({ text: "Next steps", heading: HeadingLevel.HEADING_2 }),
          new Paragraph({ text: "Hire", numbering: { reference: "steps", level: 0 } }),
          new Paragraph({ text: "Build", numbering: { reference: "steps", level: 0 } }),
          new Table({
            rows: [
              new TableRow({ children: [cell("Region"), cell("Sales")] }),
              new TableRow({ children: [cell("North | East"), cell("120")] }),
              new TableRow({ children: [cell("South"), cell("80")] }),
            ],
          }),
        ],
      },
    ],
  });
  return new Uint8Array(await Packer.toBuffer(doc));
}

/** An Excel workbook with two sheets: "Sales" (a header, numbers, a formula, a date) and "Notes". */
export async function sampleXlsx(): Promise<Uint8Array> {
  const wb = new ExcelJS.Workbook();
  wb.title = "Quarterly Figures";
  const sales = wb.addWorksheet("Sales");
  sales.addRow(["Region", "Q1", "Q2", "Total"]);
  sales.addRow(["North", 10, 20, { formula: "B2+C2", result: 30 }]);
  sales.addRow(["South | West", 5, 7, { formula: "B3+C3", result: 12 }]);
  sales.addRow(["Closed on", new Date(Date.UTC(2024, 2, 31)), "", ""]);
  const notes = wb.addWorksheet("Notes");
  notes.addRow(["Note"]);
  notes.addRow(["Line one\nLine two"]);
  return new Uint8Array(await wb.xlsx.writeBuffer());
}

export const SAMPLE_CSV = '\uFEFFname,city,score\nAlice,Paris,30\n"Bob, Jr.","New | York",25\n';

const ODF_MANIFEST = (mime: string, extra = "") => `<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">
 <manifest:file-entry manifest:full-path="/" manifest:media-type="${mime}"/>
 <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">${extra}</manifest:file-entry>
</manifest:manifest>`;

const ODF_NS = [
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"',
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"',
  'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"',
  'xmlns:xlink="http://www.w3.org/1999/xlink"',
  'xmlns:dc="http://purl.org/dc/elements/1.1/"',
  'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"',
].join(" ");

/** A minimal valid ODF package: `mimetype` first and stored, then content.xml, meta.xml and the manifest. */
async function odfPackage(mime: string, content: string, opts: { title?: string; encrypted?: boolean }) {
  const zip = new JSZip();
  zip.file("mimetype", mime, { compression: "STORE" });
  zip.file("content.xml", content);
  if (opts.title)
    zip.file(
      "meta.xml",
      `<?xml version="1.0" encoding="UTF-8"?><office:document-meta ${ODF_NS}><office:meta><dc:title>${opts.title}</dc:title></office:meta></office:document-meta>`,
    );
  const encryption = opts.encrypted
    ? '<manifest:encryption-data manifest:checksum-type="SHA1/1K" manifest:checksum="AAAA"><manifest:algorithm manifest:algorithm-name="Blowfish CFB" manifest:initialisation-vector="AAAA"/></manifest:encryption-data>'
    : "";
  zip.file("META-INF/manifest.xml", ODF_MANIFEST(mime, encryption));
  return zip.generateAsync({ type: "uint8array", compression: "DEFLATE" });
}

/** An OpenDocument text: headings, a styled paragraph, a bullet and a numbered list, a table, a footnote. */
export function sampleOdt(opts: { encrypted?: boolean } = {}): Promise<Uint8Array> {
  const content = `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content ${ODF_NS} office:version="1.2">
 <office:automatic-styles>
  <style:style style:name="T1" style:family="text"><style:text-properties fo:font-weight="bold"/></style:style>
  <text:list-style style:name="L2"><text:list-level-style-number text:level="1" style:num-format="1"/></text:list-style>
 </office:automatic-styles>
 <office:body>
  <office:text>
   <text:sequence-decls/>
   <text:h text:outline-level="1">Meeting Notes</text:h>
   <text:p>We met on <text:span text:style-name="T1">Tuesday</text:span> at the <text:a xlink:href="https://example.com/office">office</text:a>.<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>Room 4.</text:p></text:note-body></text:note></text:p>
   <text:h text:outline-level="2">Attendees</text:h>
   <text:list>
    <text:list-item><text:p>Ann</text:p></text:list-item>
    <text:list-item><text:p>Ben</text:p></text:list-item>
   </text:list>
   <text:h text:outline-level="2">Actions</text:h>
   <text:list text:style-name="L2">
    <text:list-item><text:p>Write the report</text:p></text:list-item>
    <text:list-item><text:p>Send it</text:p></text:list-item>
   </text:list>
   <table:table table:name="Budget">
    <table:table-column table:number-columns-repeated="2"/>
    <table:table-header-rows>
     <table:table-row><table:table-cell><text:p>Item</text:p></table:table-cell><table:table-cell><text:p>Cost</text:p></table:table-cell></table:table-row>
    </table:table-header-rows>
    <table:table-row><table:table-cell><text:p>Paper &amp; ink</text:p></table:table-cell><table:table-cell><text:p>12</text:p></table:table-cell></table:table-row>
   </table:table>
  </office:text>
 </office:body>
</office:document-content>`;
  return odfPackage("application/vnd.oasis.opendocument.text", content, { title: "Team Meeting", ...opts });
}

/**
 * An OpenDocument spreadsheet with two sheets, written the way LibreOffice writes them: repeated
 * cells and rows, and each sheet ending in empty cells repeated to column 16384 and empty rows
 * repeated to row 1048576.
 */
export function sampleOds(): Promise<Uint8Array> {
  const c = (text: string, repeat = 1) =>
    `<table:table-cell${repeat > 1 ? ` table:number-columns-repeated="${repeat}"` : ""}><text:p>${text}</text:p></table:table-cell>`;
  const empty = (repeat: number) => `<table:table-cell table:number-columns-repeated="${repeat}"/>`;
  const row = (cells: string, repeat = 1) =>
    `<table:table-row${repeat > 1 ? ` table:number-rows-repeated="${repeat}"` : ""}>${cells}</table:table-row>`;
  const content = `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content ${ODF_NS} office:version="1.2">
 <office:body>
  <office:spreadsheet>
   <table:table table:name="Inventory">
    <table:table-column table:number-columns-repeated="16384"/>
    ${row(c("Item") + c("Count") + c("Flag") + empty(16381))}
    ${row(c("Nuts") + c("5", 2) + empty(16381))}
    ${row(c("Washers") + c("9") + c("no") + empty(16381), 2)}
    ${row(empty(16384), 1048572)}
   </table:table>
   <table:table table:name="Summary">
    ${row(c("Total") + c("7") + empty(16382))}
    ${row(empty(16384), 1048575)}
   </table:table>
  </office:spreadsheet>
 </office:body>
</office:document-content>`;
  return odfPackage("application/vnd.oasis.opendocument.spreadsheet", content, { title: "Stock" });
}

/** A Word document whose paragraphs link to `links` (relative or absolute), one per paragraph. */
export async function sampleLinkedDocx(links: Array<{ text: string; href: string }>): Promise<Uint8Array> {
  const doc = new Document({
    title: "Reading List",
    sections: [
      {
        children: [
          new Paragraph({ text: "Reading list", heading: HeadingLevel.HEADING_1 }),
          ...links.map(
            (l) =>
              new Paragraph({
                children: [
                  new TextRun("Read "),
                  new ExternalHyperlink({
                    link: l.href,
                    children: [new TextRun({ text: l.text, style: "Hyperlink" })],
                  }),
                ],
              }),
          ),
        ],
      },
    ],
  });
  return new Uint8Array(await Packer.toBuffer(doc));
}
