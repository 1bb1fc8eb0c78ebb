import type { Page } from "playwright-core";

/** How long a page close may take before the task goes on without it. */
export const PAGE_CLOSE_MS = 2_000;

/**
 * Close a page without letting the task wait on it for long. Chromium can hold `page.close()` for
 * many seconds when the page is in the middle of a cross-site navigation (seen with a script redirect
 * the guard refused); the close still completes in the background, and closing the context is prompt.
 * Resolves true when the page closed in time.
 */
export async function closePage(page: Page, ms = PAGE_CLOSE_MS): Promise<boolean> {
  if (page.isClosed()) return true;
  let timer: NodeJS.Timeout | undefined;
  const closed = page.close().then(
    () => true,
    () => page.isClosed(),
  );
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([closed, late]);
  } finally {
    clearTimeout(timer);
  }
}
