/** A frame's link targets and title (ComposeArgs.links, entries/links-and-title.ts). */
export interface FrameRead {
  links: string[];
  title: string;
}

/**
 * Every link target of the document as the browser resolved it (`a[href]`, script-built links included),
 * at most `max`, and the document's title.
 */
export function linksAndTitle(max: number): FrameRead {
  return {
    links: Array.from(document.querySelectorAll("a[href]"), (a) => (a as HTMLAnchorElement).href).slice(
      0,
      max,
    ),
    title: document.title,
  };
}
