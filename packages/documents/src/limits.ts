/**
 * Bounds on what one document may cost. A document past a hard bound fails with `document_too_large`;
 * a spreadsheet past a soft bound (rows, columns, sheets) is cut and the markdown says so.
 */

/** PDFs with more pages than this fail with document_too_large (convertDocument's maxPages overrides it). */
export const MAX_PDF_PAGES = 2_000;
/** Rows shown per sheet (or CSV), the header row included; the rest are cut with a note. */
export const MAX_SHEET_ROWS = 5_000;
/** Columns shown per sheet (or CSV); the rest are cut with a note. */
export const MAX_SHEET_COLUMNS = 100;
/** Sheets shown per workbook; the rest are cut with a note. */
export const MAX_SHEETS = 100;
/** Cells shown across a whole workbook; the sheets past it are cut with a note. */
export const MAX_WORKBOOK_CELLS = 1_000_000;
/** A ZIP-based document (docx, xlsx, odt, ods) whose entries unpack to more than this is refused (zip bombs). */
export const MAX_UNZIPPED_BYTES = 300 * 1024 * 1024;
/** Markdown longer than this is refused rather than shipped. */
export const MAX_MARKDOWN_CHARS = 20_000_000;
/** Default wall-time budget for one conversion. */
export const DEFAULT_TIME_BUDGET_MS = 20_000;
