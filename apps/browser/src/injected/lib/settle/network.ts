import { type Book, now, touch } from "./book.ts";

/** The requests and streams the page has open, as the settle bookkeeping keeps them. */
export interface Network {
  /** Fetches and XHRs in flight (a poll left out), by id: when each started. */
  requests: Map<number, number>;
  /** Websockets and EventSources yet to receive their first message, by id: when each opened. */
  streams: Map<number, number>;
  /** Counts other work the page awaits as a request from now (its id for `end`). */
  track(): number;
  /** That work is done: activity. */
  end(id: number): void;
}

interface MarkedXhr extends XMLHttpRequest {
  /** The URL it was opened with, absolute (an expando on the page's own object). */
  __bfUrl?: string;
}

/**
 * Watches fetch and XHR (a request to a URL already fetched once is a poll and does not count) and
 * websockets and EventSources; each finishing is activity.
 */
export function watchNetwork(book: Book): Network {
  const requests = new Map<number, number>();
  const streams = new Map<number, number>();
  const fetched = new Set<string>();
  let nextRequest = 1;
  const begin = (url: string) => {
    const key = String(url);
    if (fetched.has(key)) return 0;
    fetched.add(key);
    const id = nextRequest++;
    requests.set(id, now());
    return id;
  };
  const end = (id: number) => {
    if (id && requests.delete(id)) touch(book);
  };
  // Responses of counted fetches: reading and parsing their body (res.json()) is pending work too, so
  // the page's next step after it (a timer, another fetch) is waited for even on a busy renderer.
  const counted = new WeakSet<Response>();
  const origFetch = window.fetch;
  if (origFetch) {
    window.fetch = function (this: unknown, input: RequestInfo | URL, init?: RequestInit) {
      let url = "";
      try {
        url = new URL(input instanceof Request ? input.url : String(input), location.href).href;
      } catch {}
      book.asked++;
      const id = begin(url);
      const p = origFetch.call(this, input, init);
      p.then(
        (res) => {
          if (id) counted.add(res);
          end(id);
        },
        () => end(id),
      );
      return p;
    };
    const proto = window.Response?.prototype as unknown as Record<string, unknown> | undefined;
    for (const name of ["json", "text", "arrayBuffer", "blob", "formData"]) {
      const read = proto?.[name];
      if (!proto || typeof read !== "function") continue;
      proto[name] = function (this: Response) {
        const p = (read as (this: Response) => Promise<unknown>).call(this);
        if (!counted.has(this)) return p;
        const id = nextRequest++;
        requests.set(id, now());
        p.then(
          () => end(id),
          () => end(id),
        );
        return p;
      };
    }
  }
  const XHR = window.XMLHttpRequest;
  if (XHR) {
    const open = XHR.prototype.open as (this: XMLHttpRequest, ...args: unknown[]) => void;
    const send = XHR.prototype.send;
    XHR.prototype.open = function (this: MarkedXhr, method: string, url: string | URL, ...rest: unknown[]) {
      try {
        this.__bfUrl = new URL(String(url), location.href).href;
      } catch {
        this.__bfUrl = String(url);
      }
      return open.call(this, method, url, ...rest);
    };
    XHR.prototype.send = function (this: MarkedXhr, body?: Document | XMLHttpRequestBodyInit | null) {
      book.asked++;
      const id = begin(this.__bfUrl || "");
      this.addEventListener("loadend", () => end(id), { once: true });
      return send.call(this, body);
    };
  }

  const wrapStream = <C extends new (...args: never[]) => EventTarget>(Ctor: C | undefined) => {
    if (!Ctor) return Ctor;
    // A function, not an arrow: the page calls it with `new`.
    // biome-ignore lint/complexity/useArrowFunction: an arrow function cannot be called with new
    const Wrapped = function (...args: ConstructorParameters<C>) {
      const s = new Ctor(...args);
      book.asked++;
      const id = nextRequest++;
      streams.set(id, now());
      const done = () => {
        if (streams.delete(id)) touch(book);
      };
      s.addEventListener("message", done, { once: true });
      s.addEventListener("error", done, { once: true });
      s.addEventListener("close", done, { once: true });
      return s;
    };
    Wrapped.prototype = Ctor.prototype;
    Object.setPrototypeOf(Wrapped, Ctor);
    return Wrapped as unknown as C;
  };
  window.WebSocket = wrapStream(window.WebSocket) as typeof WebSocket;
  window.EventSource = wrapStream(window.EventSource) as typeof EventSource;
  const track = () => {
    const id = nextRequest++;
    requests.set(id, now());
    return id;
  };
  return { requests, streams, track, end };
}
