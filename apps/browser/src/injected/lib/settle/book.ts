/** The page's own clock: every time the settle bookkeeping keeps is on it. */
export const now = (): number => performance.now();

/** What the parts of the settle bookkeeping (entries/settle-init.ts) share. */
export interface Book {
  /** When the page last did something that builds it, after DOMContentLoaded (-1: nothing since). */
  lastActivity: number;
  /**
   * Every timer, frame callback, message, request or stream the page asked for: unchanged between two
   * reads, the page queued nothing in between.
   */
  asked: number;
  /** DOMContentLoaded has come: a parser building the document is not activity. */
  domReady: boolean;
}

export function newBook(): Book {
  return { lastActivity: -1, asked: 0, domReady: document.readyState !== "loading" };
}

/** Activity, once the document is parsed. */
export function touch(book: Book): void {
  if (book.domReady) book.lastActivity = now();
}
