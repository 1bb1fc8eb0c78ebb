/*
 * Run in one frame (frame.evaluate) to read the page as a person sees it: open shadow roots composed in
 * place of their hosts' children, iframes marked so that the Node side (page/composed-dom.ts) can put
 * each frame's own serialization where its iframe is.
 */

import { type FrameRead, linksAndTitle } from "../lib/links-and-title.ts";

export interface ComposeArgs {
  visibleOnly: boolean;
  /** Rewrite link hrefs and image srcs to absolute URLs (against this frame's own URL). */
  absolutize: boolean;
  /** "document": `<!DOCTYPE html>` and the whole html element; "body": what is inside body only. */
  part: "document" | "body";
  /** The iframe (or frame) elements whose frames the caller will stitch in; marked by their index here. */
  frames: Element[];
  /** Random per call: the frame markers are `<!--bf-frame:TOKEN:INDEX-->…<!--/bf-frame:TOKEN:INDEX-->`. */
  token: string;
  /** Open shadow roots composed at most; further hosts keep their light children as they are. */
  maxShadowRoots: number;
  /**
   * Also read the frame's link targets as the browser resolved them (`a[href]`, at most this many) and its
   * title, in the same call: a crawl's page needs them beside its markdown.
   */
  links?: number;
}

export interface ComposeResult {
  html: string;
  shadowRoots: number;
  /** Some open shadow roots were left out because of maxShadowRoots. */
  shadowTruncated: boolean;
  /** Iframes in the output that were not marked (so their content is not stitched in). */
  unmarkedFrames: number;
  /** With ComposeArgs.links. */
  read?: FrameRead;
}

/**
 * The frame's DOM composed as rendered: every open shadow root's content stands in place of its host's
 * children, each <slot> replaced by the nodes assigned to it (or by its fallback content), unassigned
 * light children left out. Marked iframes are wrapped in marker comments. With visibleOnly, the rules of
 * the light-DOM serializer markdown had before composition (test/composed-dom.test.ts keeps it as
 * visibleDocumentHtml) apply in the light DOM and in every shadow tree: what is display:none,
 * visibility:hidden or [hidden] is dropped (head excepted), and so are zero-size iframes and the styles
 * and scripts of shadow trees.
 */
export default function composeFrameHtml(args: ComposeArgs): ComposeResult {
  const read = args.links === undefined ? undefined : linksAndTitle(args.links);
  const root = document.documentElement;
  if (!root)
    return { html: "", shadowRoots: 0, shadowTruncated: false, unmarkedFrames: 0, ...(read ? { read } : {}) };
  const frameIds = new Map<Element, number>();
  args.frames.forEach((f, i) => {
    if (f) frameIds.set(f, i);
  });
  // visibleDocumentHtml's doctype when visibleOnly, else the document's own, as page.content() has it.
  const doctype = args.visibleOnly
    ? "<!DOCTYPE html>"
    : document.doctype
      ? new XMLSerializer().serializeToString(document.doctype)
      : "";
  const originals = root.querySelectorAll("*");
  const n = originals.length;

  // The html format of a page without shadow roots and stitched frames: the DOM exactly as it is.
  if (!args.visibleOnly && !args.absolutize && frameIds.size === 0) {
    let hosts = false;
    for (let i = 0; i < n; i++) {
      if (originals[i]!.shadowRoot) {
        hosts = true;
        break;
      }
    }
    if (!hosts) {
      let unmarkedFrames = 0;
      for (let i = 0; i < n; i++) {
        const t = originals[i]!.tagName;
        if (t === "IFRAME" || t === "FRAME") unmarkedFrames++;
      }
      const html =
        args.part === "document" ? `${doctype}${root.outerHTML}` : (document.body?.innerHTML ?? "");
      return { html, shadowRoots: 0, shadowTruncated: false, unmarkedFrames, ...(read ? { read } : {}) };
    }
  }

  const rootCopy = root.cloneNode(true) as Element;
  interface Tree {
    originals: ArrayLike<Element>;
    copies: ArrayLike<Element>;
    /** For a shadow tree: its host, the host's copy and the copies of the shadow root's children. */
    host: Element | null;
    hostCopy: Element | null;
    content: DocumentFragment | null;
    slots: [HTMLSlotElement, Element][];
  }
  const trees: Tree[] = [
    {
      originals,
      copies: rootCopy.querySelectorAll("*"),
      host: null,
      hostCopy: null,
      content: null,
      slots: [],
    },
  ];
  // `gone`: copies left out, with all their descendants; `drop`: the topmost of them, to remove.
  const gone = new Set<Node>();
  const drop: Element[] = [];
  const marks: [Element, number][] = [];
  const bodyEl = document.body;
  let bodyCopy: Element | null = null;
  let unmarkedFrames = 0;
  let shadowRoots = 0;
  let shadowTruncated = false;
  // The head and what is inside it are never dropped; in tree order they are one run of elements.
  let headStart = -1;
  let headEnd = -1;
  if (document.head && document.head.parentNode === root) {
    for (let i = 0; i < n; i++) {
      if (originals[i] === document.head) {
        headStart = i;
        headEnd = i + document.head.querySelectorAll("*").length;
        break;
      }
    }
  }

  for (let t = 0; t < trees.length; t++) {
    const tree = trees[t]!;
    const inShadow = tree.host !== null;
    const count = tree.originals.length;
    for (let i = 0; i < count; i++) {
      const el = tree.originals[i]!;
      const copy = tree.copies[i];
      if (!copy) continue;
      if (args.visibleOnly) {
        const parent = copy.parentNode;
        if (parent && gone.has(parent)) {
          gone.add(copy);
          continue;
        }
        if (inShadow) {
          // A shadow tree's own styles and scripts (SVG's lower-case ones too) are not content.
          const tag = el.tagName.toUpperCase();
          if (tag === "STYLE" || tag === "SCRIPT" || tag === "LINK") {
            gone.add(copy);
            drop.push(copy);
            continue;
          }
        }
        if (el instanceof HTMLElement && (inShadow || i < headStart || i > headEnd)) {
          const tag = el.tagName;
          let hide = el.hidden;
          if (!hide) {
            const style = getComputedStyle(el);
            hide = style.display === "none" || style.visibility === "hidden";
          }
          if (!hide && (tag === "IFRAME" || tag === "FRAME")) {
            const r = el.getBoundingClientRect();
            hide = r.width === 0 || r.height === 0;
          }
          if (hide) {
            gone.add(copy);
            drop.push(copy);
            continue;
          }
        }
      }
      if (args.absolutize) {
        if (el instanceof HTMLAnchorElement && el.getAttribute("href")) copy.setAttribute("href", el.href);
        if (el instanceof HTMLImageElement && el.getAttribute("src"))
          copy.setAttribute("src", el.currentSrc || el.src);
      }
      if (el === bodyEl) bodyCopy = copy;
      const tag = el.tagName;
      if (tag === "IFRAME" || tag === "FRAME") {
        const id = frameIds.get(el);
        if (id === undefined) unmarkedFrames++;
        else marks.push([copy, id]);
      } else if (inShadow && tag === "SLOT") {
        tree.slots.push([el as HTMLSlotElement, copy]);
      }
      const shadow = el.shadowRoot;
      if (shadow) {
        if (shadowRoots >= args.maxShadowRoots) shadowTruncated = true;
        else {
          shadowRoots++;
          const content = document.createDocumentFragment();
          shadow.childNodes.forEach((c) => {
            content.appendChild(c.cloneNode(true));
          });
          trees.push({
            originals: shadow.querySelectorAll("*"),
            copies: content.querySelectorAll("*"),
            host: el,
            hostCopy: copy,
            content,
            slots: [],
          });
        }
      }
    }
  }

  // Innermost shadow trees first: a tree's slots may be assigned to slots of the tree around it, and
  // those must still stand where they were when the inner tree takes them.
  for (let t = trees.length - 1; t >= 1; t--) {
    const tree = trees[t]!;
    const light = new Map<Node, Node>();
    const lightOriginals = tree.host!.childNodes;
    const lightCopies = tree.hostCopy!.childNodes;
    for (let i = 0; i < lightOriginals.length && i < lightCopies.length; i++)
      light.set(lightOriginals[i]!, lightCopies[i]!);
    for (const [slot, slotCopy] of tree.slots) {
      const assigned = slot.assignedNodes();
      if (assigned.length === 0) {
        slotCopy.replaceWith(...Array.from(slotCopy.childNodes));
        continue;
      }
      const put: Node[] = [];
      for (const a of assigned) {
        const c = light.get(a);
        if (c && !gone.has(c)) put.push(c);
      }
      slotCopy.replaceWith(...put);
    }
    tree.hostCopy!.replaceChildren(tree.content!);
  }

  for (const [copy, id] of marks) {
    if (gone.has(copy)) continue;
    copy.before(document.createComment(`bf-frame:${args.token}:${id}`));
    copy.after(document.createComment(`/bf-frame:${args.token}:${id}`));
  }
  for (const d of drop) d.remove();

  let html: string;
  if (args.part === "body") {
    html = bodyCopy && !gone.has(bodyCopy) ? (bodyCopy as Element).innerHTML : "";
  } else {
    const frameset = bodyCopy as Element | null;
    if (frameset && frameset.tagName === "FRAMESET" && frameset.parentNode === rootCopy) {
      // A frameset document: stitched frame content must land in a body to survive HTML parsing.
      const body = document.createElement("body");
      body.append(...Array.from(frameset.childNodes));
      frameset.replaceWith(body);
    }
    html = `${doctype}${rootCopy.outerHTML}`;
  }
  return { html, shadowRoots, shadowTruncated, unmarkedFrames, ...(read ? { read } : {}) };
}
