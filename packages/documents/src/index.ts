export { type ConvertedDocument, type ConvertOptions, convertDocument, fileNameOf } from "./convert.ts";
export { DocumentError, type DocumentErrorCode } from "./errors.ts";
export * from "./limits.ts";
export { pageMarker } from "./pdf.ts";
export {
  claimedDocumentType,
  type DocumentType,
  looksLikeDocumentType,
  mimeOf,
  type SniffInput,
  sniffDocument,
} from "./sniff.ts";
