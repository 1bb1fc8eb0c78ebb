import ExcelJS from "exceljs";
import type { Budget } from "./budget.ts";
import { DocumentError } from "./errors.ts";
import { MAX_SHEETS, MAX_WORKBOOK_CELLS } from "./limits.ts";
import { Grid } from "./table.ts";
import { openZip } from "./zip.ts";

export interface SheetsResult {
  markdown: string;
  title?: string;
  sheets: number;
}

/** A date as the sheet most likely shows it: the day alone at midnight, else day and time (UTC). */
function dateText(d: Date): string {
  const iso = d.toISOString();
  return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso.slice(0, 19).replace("T", " ");
}

/** The text a cell shows: formulas by their result, rich text and links by their text. */
export function valueText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return "";
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "" : dateText(value);
  if (typeof value !== "object") return String(value);
  if ("richText" in value) return value.richText.map((r) => r.text).join("");
  if ("formula" in value || "sharedFormula" in value)
    return valueText((value as { result?: ExcelJS.CellValue }).result);
  if ("hyperlink" in value) return typeof value.text === "string" ? value.text : valueText(value.text);
  if ("error" in value) return String(value.error);
  return "";
}

/** Render sheets as `## name` + table, within the workbook's cell budget; says which sheets were cut. */
export function sheetsMarkdown(
  sheets: Array<{ name: string; fill(grid: Grid): void }>,
  budget: Budget,
): string {
  const parts: string[] = [];
  let cells = 0;
  let shown = 0;
  for (const sheet of sheets.slice(0, MAX_SHEETS)) {
    budget.check();
    if (cells >= MAX_WORKBOOK_CELLS) break;
    const grid = new Grid();
    sheet.fill(grid);
    cells += grid.rows.reduce((n, r) => n + r.length, 0);
    parts.push(`## ${sheet.name.replace(/\s+/g, " ").trim() || `Sheet ${shown + 1}`}\n\n${grid.markdown()}`);
    shown++;
  }
  if (shown < sheets.length)
    parts.push(
      `_Cut: only the first ${shown} of ${sheets.length} sheets are shown${cells >= MAX_WORKBOOK_CELLS ? ` (the workbook has more than ${MAX_WORKBOOK_CELLS} cells)` : ""}._`,
    );
  return `${parts.join("\n\n")}\n`;
}

/** An Excel workbook through exceljs: every sheet a `## <name>` heading and a table, first row as header. */
export async function convertXlsx(bytes: Uint8Array, budget: Budget): Promise<SheetsResult> {
  // openZip refuses zip bombs before exceljs inflates anything.
  const zip = await openZip(bytes, "Excel", budget);
  if (!zip.has("xl/workbook.xml"))
    throw new DocumentError(
      "document_corrupt",
      "the file is a ZIP package but not an Excel (.xlsx) workbook",
    );
  const workbook = new ExcelJS.Workbook();
  try {
    await budget.race(workbook.xlsx.load(Buffer.from(bytes) as unknown as ArrayBuffer));
  } catch (err) {
    if (err instanceof DocumentError) throw err;
    throw new DocumentError(
      "document_corrupt",
      `the Excel workbook is damaged and cannot be read: ${(err as Error).message}`,
    );
  }
  const sheets = workbook.worksheets.map((ws) => ({
    name: ws.name,
    fill(grid: Grid) {
      ws.eachRow((row) => {
        const cells: Array<[number, string]> = [];
        row.eachCell((cell, col) => {
          // A merged range shows its value once, in its top-left cell.
          if (cell.isMerged && cell.master !== cell) return;
          cells.push([col - 1, valueText(cell.value)]);
        });
        grid.add(cells);
      });
    },
  }));
  const title = workbook.title?.trim();
  return {
    markdown: sheetsMarkdown(sheets, budget),
    sheets: workbook.worksheets.length,
    ...(title ? { title } : {}),
  };
}
