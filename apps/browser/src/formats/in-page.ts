/*
 * Functions that run inside the page (page.evaluate). Each must be self-contained:
 * Playwright serializes the function source, so nothing from module scope is visible there, and
 * named inner functions must be avoided (esbuild's keepNames wraps them in a `__name` helper).
 */

export interface PageLink {
  url: string;
  text: string;
}
