/** Run in a page: the User-Agent the browser sends from it. */
export default function userAgent(): string {
  return navigator.userAgent;
}
