/**
 * Waiting for a condition instead of for a time: a test that needs something to have happened (a slot
 * taken, a state published, a message read) looks at it until it holds, and fails naming what it waited
 * for when it never does.
 */

/**
 * Calls `check` every `everyMs` until it returns something other than undefined or false, and returns
 * that. A check that throws counts as "not yet" (a server still starting, an assertion not met yet); the
 * last error is quoted when the time runs out, with `what` the test waited for.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 30_000,
  everyMs = 200,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v as T;
    } catch (err) {
      last = err;
    }
    if (Date.now() >= until) break;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ""}`,
  );
}
