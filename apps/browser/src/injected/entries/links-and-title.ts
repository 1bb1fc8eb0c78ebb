import { linksAndTitle } from "../lib/links-and-title.ts";

/**
 * Run in a page: every link target as the browser resolved it (script-built links included), at most
 * `max`, and the page's title in the same call (a reply's metadata would otherwise ask for it on its own).
 */
export default linksAndTitle;
