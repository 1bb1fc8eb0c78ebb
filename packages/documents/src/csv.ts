import Papa from "papaparse";
import type { Budget } from "./budget.ts";
import { DocumentError } from "./errors.ts";
import { MAX_SHEET_ROWS } from "./limits.ts";
import { Grid } from "./table.ts";

export interface CsvResult {
  markdown: string;
  title: string;
  sheets: 1;
}

const utf8 = new TextDecoder("utf-8", { ignoreBOM: false });

/** A CSV (UTF-8, BOM stripped, delimiter guessed by papaparse) as one table headed by the file name. */
export function convertCsv(bytes: Uint8Array, name: string, budget: Budget): CsvResult {
  const text = utf8.decode(bytes);
  let rows: string[][];
  let truncated = false;
  try {
    // One row past the cap says whether there were more; papaparse stops reading there.
    const parsed = Papa.parse<string[]>(text, { preview: MAX_SHEET_ROWS + 1, skipEmptyLines: "greedy" });
    rows = parsed.data;
    truncated = rows.length > MAX_SHEET_ROWS;
  } catch (err) {
    throw new DocumentError("document_corrupt", `the CSV file cannot be parsed: ${(err as Error).message}`);
  }
  budget.check();
  const grid = new Grid();
  for (const row of rows.slice(0, MAX_SHEET_ROWS)) grid.add(row.map((cell, i) => [i, String(cell)]));
  let table = grid.markdown();
  if (truncated) table += `\n\n_Cut: only the first ${MAX_SHEET_ROWS} rows are shown._`;
  return { markdown: `## ${name}\n\n${table}\n`, title: name, sheets: 1 };
}
