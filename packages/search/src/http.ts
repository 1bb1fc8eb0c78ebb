import { type CallLimits, SearchProviderError } from "./types.ts";

/** Turns a provider's error answer (its documented error body, or whatever came) into a short reason. */
export type ReasonOf = (status: number, body: unknown, text: string) => string | undefined;

/** A short, printable piece of a body for error messages. */
export function excerpt(text: string, max = 200): string {
  const flat = text
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

async function readCapped(provider: string, res: Response, maxBytes: number): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw new SearchProviderError(provider, `${provider} sent an answer larger than ${maxBytes} bytes`);
  }
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new SearchProviderError(provider, `${provider} sent an answer larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function transportError(provider: string, err: unknown, signal: AbortSignal): SearchProviderError {
  if (err instanceof SearchProviderError) return err;
  if (signal.aborted) {
    const reason = signal.reason as { name?: string } | undefined;
    return new SearchProviderError(
      provider,
      reason?.name === "TimeoutError"
        ? `${provider} did not answer in time`
        : `the call to ${provider} was aborted`,
    );
  }
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  const why = e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
  return new SearchProviderError(provider, `could not reach ${provider}: ${why}`);
}

/**
 * One request to a provider at an operator-configured URL (so not SSRF-guarded): bounded by the call's
 * signal and by maxBytes. A 2xx JSON body is returned; anything else is a SearchProviderError carrying
 * the provider's own reason.
 */
export async function providerJson(
  provider: string,
  url: string,
  init: RequestInit,
  limits: CallLimits,
  reasonOf: ReasonOf,
): Promise<unknown> {
  let status: number;
  let text: string;
  try {
    const res = await fetch(url, {
      ...init,
      headers: { accept: "application/json", ...(init.headers as Record<string, string>) },
      redirect: "follow",
      signal: limits.signal,
    });
    status = res.status;
    text = await readCapped(provider, res, limits.maxBytes);
  } catch (err) {
    throw transportError(provider, err, limits.signal);
  }
  let body: unknown;
  let parsed = true;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = false;
  }
  if (status < 200 || status > 299) {
    const reason = reasonOf(status, body, text) ?? (excerpt(text) || "no reason given");
    throw new SearchProviderError(provider, `${provider} answered HTTP ${status}: ${reason}`, status);
  }
  if (!parsed || body === undefined) {
    throw new SearchProviderError(
      provider,
      `${provider} answered HTTP ${status} with a body that is not JSON: ${excerpt(text, 80) || "(empty)"}`,
      status,
    );
  }
  return body;
}

/** The provider answered 2xx JSON that is not its documented response. */
export function malformedBody(
  provider: string,
  error: { issues: Array<{ path: PropertyKey[]; message: string }> },
) {
  const first = error.issues[0];
  const where = first?.path.length ? ` at ${first.path.map(String).join(".")}` : "";
  return new SearchProviderError(
    provider,
    `${provider} answered with a body that is not its documented search response${where}: ${first?.message ?? "unexpected shape"}`,
  );
}
