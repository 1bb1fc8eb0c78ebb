import type { IncomingHttpHeaders } from "node:http";

/** A complete response, produced by a router and written by the fixture server's `send`. */
export interface Reply {
  status: number;
  type?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

/** A group of fixture routes kept in its own module; returns null for paths it does not serve. */
export type ExtraRoutes = (
  path: string,
  query: URLSearchParams,
  origin: string,
  /** The request's Cookie header ("" without one). */
  cookie: string,
  /** All the request's headers (the server passes them; a route called by another may be given none). */
  headers?: IncomingHttpHeaders,
) => Reply | null;
