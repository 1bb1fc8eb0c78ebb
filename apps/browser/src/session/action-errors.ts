const MAX_MESSAGE = 300;
export const FRESH_MAP = 'take a fresh controls map (formats: ["controls"]) and use its refs';

export class ActionError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function messageOf(err: unknown): string {
  // Playwright colours its call log; drop the escapes.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes
  return String((err as Error)?.message ?? err).replace(/\u001b\[\d+m/g, "");
}

export function isTimeout(err: unknown): boolean {
  return (err as Error)?.name === "TimeoutError" || /Timeout \d+ms exceeded/.test(messageOf(err));
}

export function isInvalidSelector(m: string): boolean {
  return /while parsing (css )?selector|not a valid selector|Unknown engine|Unexpected token|Invalid selector/i.test(
    m,
  );
}

/** The first line of a Playwright error without its `locator.click: ` and `Error: ` prefixes. */
export function shortReason(m: string): string {
  return m
    .split("\n")[0]!
    .replace(/^[\w.]+: /, "")
    .replace(/^Error: /, "")
    .trim();
}

/** Playwright's reason from the call log, e.g. "element is not enabled". */
export function whyNotActionable(m: string): string {
  const lines = m
    .split("\n")
    .map((l) =>
      l
        .trim()
        .replace(/^-\s*/, "")
        .replace(/^\d+ × /, ""),
    )
    .filter(Boolean);
  const reason = lines.findLast((l) =>
    /element is not|intercepts pointer events|did not find|outside of the viewport|not stable|not editable|not attached/i.test(
      l,
    ),
  );
  if (!reason) return "the element never became usable; check that it is visible and enabled";
  if (/did not find some options/.test(reason)) return "the select does not have the requested option";
  return `${reason}; wait for it to become usable (wait.selector / wait.ms), or act on another control`;
}

export function actionErrorOf(err: unknown): { code: string; message: string } {
  if (err instanceof ActionError) return { code: err.code, message: err.message };
  const m = messageOf(err);
  if (/Target page, context or browser has been closed|Target closed|browser has been closed/i.test(m))
    return { code: "page_closed", message: "the page was closed while acting; open a new session" };
  if (/Execution context was destroyed/i.test(m))
    return {
      code: "action_failed",
      message: `the page navigated while the action ran (${shortReason(m)}); ${FRESH_MAP}`,
    };
  if (isTimeout(err)) return { code: "timeout", message: shortReason(m) };
  return { code: "action_failed", message: shortReason(m) };
}

export function oneLine(s: string): string {
  const line = s.replace(/\s+/g, " ").trim();
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE - 1)}…` : line;
}
