import type { Book } from "./book.ts";
import type { Network } from "./network.ts";

/**
 * Watches IndexedDB: a database being opened and a transaction until it completes are pending work, as
 * a fetch is. An offline-first page (a saved profile's drafts, a PWA's cached data) builds its content
 * from them after `load`; their end is activity.
 */
export function watchIndexedDb(book: Book, network: Network): void {
  const pend = (target: EventTarget, ends: string[]) => {
    book.asked++;
    const id = network.track();
    const done = () => network.end(id);
    for (const type of ends) target.addEventListener(type, done, { once: true });
  };
  const factory = window.IDBFactory?.prototype;
  const open = factory?.open;
  if (open) {
    factory.open = function (this: IDBFactory, ...args: Parameters<IDBFactory["open"]>) {
      const request = open.apply(this, args);
      pend(request, ["success", "error", "blocked"]);
      return request;
    };
  }
  const database = window.IDBDatabase?.prototype;
  const transaction = database?.transaction;
  if (transaction) {
    database.transaction = function (this: IDBDatabase, ...args: Parameters<IDBDatabase["transaction"]>) {
      const tx = transaction.apply(this, args);
      pend(tx, ["complete", "abort", "error"]);
      return tx;
    };
  }
}
