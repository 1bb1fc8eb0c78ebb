import { DocumentError } from "./errors.ts";

/**
 * A conversion's wall-time budget. Parsers run on this thread, so a budget cannot stop a parser in
 * the middle of synchronous work; it is checked between steps (pages, sheets, rows) and races the
 * parsers' promises, so the caller gets its answer on time even when a parser would have run on.
 */
export class Budget {
  private readonly deadline: number;
  constructor(private readonly ms: number) {
    this.deadline = Date.now() + ms;
  }

  private error(): DocumentError {
    return new DocumentError(
      "document_too_large",
      `the document took longer than ${Math.round(this.ms / 1000)} s to convert; it is too large or too complex`,
    );
  }

  check(): void {
    if (Date.now() >= this.deadline) throw this.error();
  }

  /** The promise's value, or document_too_large once the budget is spent. */
  async race<T>(work: Promise<T>): Promise<T> {
    // The loser must not surface as an unhandled rejection.
    work.catch(() => {});
    this.check();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.error()), Math.max(0, this.deadline - Date.now()));
    });
    try {
      return await Promise.race([work, expired]);
    } finally {
      clearTimeout(timer);
    }
  }
}
