/** Why a document could not be converted; the worker reports it as the markdown format's error. */
export type DocumentErrorCode =
  | "document_corrupt"
  | "document_encrypted"
  | "document_too_large"
  | "document_unsupported";

export class DocumentError extends Error {
  override readonly name = "DocumentError";
  constructor(
    readonly code: DocumentErrorCode,
    message: string,
  ) {
    super(message);
  }
}
