/** Run in a page: the size of its whole scrollable document, in CSS pixels (a full-page screenshot's size). */
export default function pageSize(): { width: number; height: number } {
  return {
    width: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight,
  };
}
