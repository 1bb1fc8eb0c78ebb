import type { AddressRange } from "./classify.ts";

export type SsrfErrorCode = "ssrf_blocked" | "invalid_url" | "unresolvable";

/** What a blocked request hit: an address range, or "internalName" for a refused host name. */
export type BlockedRange = AddressRange | "internalName";

const DESCRIPTIONS: Record<BlockedRange, string> = {
  unicast: "a public address",
  unspecified: "an unspecified (0.0.0.0 or ::) address",
  loopback: "a loopback address",
  private: "a private address",
  linkLocal: "a link-local address",
  carrierGradeNat: "a carrier-grade NAT address",
  uniqueLocal: "a unique-local (private IPv6) address",
  multicast: "a multicast address",
  broadcast: "a broadcast address",
  reserved: "a reserved or special-purpose address",
  metadata: "a cloud metadata service address",
  invalid: "not a valid IP address",
  internalName: "a local or cluster-internal host name",
};

const POLICY = "Private, loopback, link-local and cluster-internal addresses are blocked.";
const MAX_URL_IN_MESSAGE = 200;

export interface SsrfErrorDetails {
  url: string;
  address?: string;
  range?: BlockedRange;
}

export class SsrfError extends Error {
  override readonly name = "SsrfError";
  readonly code: SsrfErrorCode;
  /** The requested URL, with any password redacted. */
  readonly url: string;
  readonly address?: string;
  readonly range?: BlockedRange;

  constructor(code: SsrfErrorCode, message: string, details: SsrfErrorDetails, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.url = details.url;
    this.address = details.address;
    this.range = details.range;
  }

  static invalidUrl(url: string, reason: string): SsrfError {
    const shown = displayUrl(url);
    return new SsrfError("invalid_url", `refusing to fetch ${shown}: ${reason}`, { url: shown });
  }

  static blockedAddress(url: string, address: string, range: BlockedRange, resolved: boolean): SsrfError {
    const shown = displayUrl(url);
    const what = resolved ? `it resolves to ${address}` : `it is ${address}`;
    const message = `refusing to fetch ${shown}: ${what}, ${DESCRIPTIONS[range]}. ${POLICY}`;
    return new SsrfError("ssrf_blocked", message, { url: shown, address, range });
  }

  static blockedHostname(url: string, hostname: string): SsrfError {
    const shown = displayUrl(url);
    const message = `refusing to fetch ${shown}: ${hostname} is ${DESCRIPTIONS.internalName}. ${POLICY}`;
    return new SsrfError("ssrf_blocked", message, { url: shown, range: "internalName" });
  }

  static unresolvable(url: string, hostname: string, cause?: unknown): SsrfError {
    const shown = displayUrl(url);
    const code = (cause as { code?: unknown } | undefined)?.code;
    const suffix = typeof code === "string" ? ` (${code})` : "";
    const message = `cannot fetch ${shown}: the host ${hostname} does not resolve to any address${suffix}.`;
    return new SsrfError(
      "unresolvable",
      message,
      { url: shown },
      cause === undefined ? undefined : { cause },
    );
  }
}

// Errors end up in logs and API responses: hide URL passwords and cap data:-URL sized input.
function displayUrl(input: string): string {
  let shown = input;
  try {
    const url = new URL(input);
    if (url.password) {
      url.password = "***";
      shown = url.href;
    }
  } catch {
    // Unparseable input has no credentials we could reliably find; show it as given.
  }
  return shown.length > MAX_URL_IN_MESSAGE ? `${shown.slice(0, MAX_URL_IN_MESSAGE)}…` : shown;
}
