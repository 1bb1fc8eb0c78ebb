/*
 * The page as a person sees it: open shadow roots composed in place (injected/entries/compose-frame-html.ts)
 * and every frame, same-origin or not, stitched in where its iframe is. A parent's script cannot read a
 * cross-origin frame, so the stitching happens here: each frame is serialized in its own context with
 * its child iframes marked (their elements passed in as handles, the page's DOM is not touched), and the
 * children's serializations replace the marked iframes. A frame that is hidden, empty, detached, slow or
 * failing is left out (its iframe stays as it is) and never fails the whole.
 */

import { randomBytes } from "node:crypto";
import type { ElementHandle, Frame, Page } from "playwright-core";
import { BrowserError } from "../errors.ts";
import type { LinkArgs, LinkResult, PageLink } from "../injected/entries/collect-frame-links.ts";
import type { ComposeArgs, ComposeResult } from "../injected/entries/compose-frame-html.ts";
import type { ElementMatch } from "../injected/entries/describe-elements.ts";
import collectFrameLinks from "../injected/generated/collect-frame-links.ts";
import composeFrameHtml from "../injected/generated/compose-frame-html.ts";
import describeElements from "../injected/generated/describe-elements.ts";
import frameContentOrigin from "../injected/generated/frame-content-origin.ts";
import type { FrameRead } from "../injected/lib/links-and-title.ts";

export interface ComposeLimits {
  /** Frames nested deeper than this are not read; the page itself is depth 0, its iframes depth 1. */
  maxDepth: number;
  /** Child frames read at most, over the whole page. */
  maxFrames: number;
  /** Open shadow roots composed at most, over the whole page (further hosts keep their light children). */
  maxShadowRoots: number;
  /** No frame is added once the html has this many characters (the page's own document always is). */
  maxBytes: number;
  /** The longest one child frame may take (finding its iframe, then serializing it). */
  frameTimeoutMs: number;
  /** The longest the page's own document may take; no frame is started after this much time either. */
  totalTimeoutMs: number;
}

export const COMPOSE_LIMITS: Readonly<ComposeLimits> = {
  maxDepth: 3,
  maxFrames: 20,
  maxShadowRoots: 2000,
  maxBytes: 10_000_000,
  frameTimeoutMs: 3000,
  totalTimeoutMs: 15_000,
};

export interface ComposedHtml {
  html: string;
  /** Child frames whose content is in html. */
  frames: number;
  /** Open shadow roots composed into html. */
  shadowRoots: number;
  /** A limit left frames or shadow roots out. */
  truncated: boolean;
  /** The page's own link targets and title, when asked for with `links`. */
  read?: FrameRead;
}

interface Run {
  limits: ComposeLimits;
  deadline: number;
  /** Child frames started (what maxFrames bounds) and child frames that made it into the output. */
  started: number;
  included: number;
  shadowRoots: number;
  bytes: number;
  truncated: boolean;
}

const startRun = (limits: Partial<ComposeLimits> | undefined): Run => {
  const l = { ...COMPOSE_LIMITS, ...limits };
  return {
    limits: l,
    deadline: Date.now() + l.totalTimeoutMs,
    started: 0,
    included: 0,
    shadowRoots: 0,
    bytes: 0,
    truncated: false,
  };
};

/** One more child frame may be read: counts it, or says the run is truncated. */
function mayStartFrame(run: Run): boolean {
  if (run.started >= run.limits.maxFrames || Date.now() >= run.deadline) {
    run.truncated = true;
    return false;
  }
  run.started++;
  return true;
}

/** `p`, or a timeout error after `ms`; a late rejection of `p` is swallowed (frame.evaluate has no timeout). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  p.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new BrowserError("timeout", 504, `${what} took longer than ${ms} ms`)),
      Math.max(ms, 1),
    );
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const dispose = (handles: (ElementHandle | null)[]) => {
  for (const h of handles) h?.dispose().catch(() => {});
};

/** The iframe elements of `children`, as handles in their parent's context (null where it failed). */
function frameElements(children: Frame[], ms: number): Promise<(ElementHandle<Element> | null)[]> {
  return Promise.all(
    children.map((c) =>
      within(c.frameElement() as Promise<ElementHandle<Element>>, ms, "finding an iframe").catch(() => null),
    ),
  );
}

const escapeAttr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;");

/**
 * One HTML document for the page as a person sees it. The page's own document (with its head) is
 * serialized as by visibleDocumentHtml when visibleOnly, else as it is (like page.content()); open shadow
 * roots are composed at their hosts; each child frame's body content replaces its iframe, inside
 * `<div data-frame-src="URL">`, its links and images absolute against the frame's own URL. A page without
 * shadow roots and frames costs one evaluate. Throws only when the page's own document cannot be read.
 */
export async function composedHtml(
  page: Page,
  /**
   * `links`: also read the page's own link targets (`a[href]` as the browser resolved them, at most this
   * many) and its title in the same call, as `read` (a crawled page needs them: one round trip fewer).
   */
  opts: { visibleOnly: boolean; limits?: Partial<ComposeLimits>; links?: number },
): Promise<ComposedHtml> {
  const run = startRun(opts.limits);
  const token = randomBytes(8).toString("hex");
  const top: { read?: FrameRead } = {};
  const html = await composeFrame(page.mainFrame(), 0, run, opts.visibleOnly, token, opts.links, top);
  return {
    html: html ?? "",
    frames: run.included,
    shadowRoots: run.shadowRoots,
    truncated: run.truncated,
    ...(top.read ? { read: top.read } : {}),
  };
}

/** The frame's composed html with its children stitched in; null for a child frame left out. */
async function composeFrame(
  frame: Frame,
  depth: number,
  run: Run,
  visibleOnly: boolean,
  token: string,
  links?: number,
  readOut?: { read?: FrameRead },
): Promise<string | null> {
  const top = depth === 0;
  const { limits } = run;
  const timeout = top ? limits.totalTimeoutMs : limits.frameTimeoutMs;
  const children = frame.childFrames().filter((c) => !c.isDetached());
  const readable = depth < limits.maxDepth ? children.slice(0, limits.maxFrames) : [];
  const handles = readable.length ? await frameElements(readable, limits.frameTimeoutMs) : [];
  const marked: { frame: Frame; handle: ElementHandle<Element> }[] = [];
  readable.forEach((c, i) => {
    const handle = handles[i];
    if (handle) marked.push({ frame: c, handle });
  });
  const args: ComposeArgs = {
    visibleOnly,
    // The html format keeps the page's own URLs as they are; a frame's must resolve against the frame.
    absolutize: visibleOnly || !top,
    part: top ? "document" : "body",
    frames: [],
    token,
    maxShadowRoots: Math.max(0, limits.maxShadowRoots - run.shadowRoots),
    ...(top && links !== undefined ? { links } : {}),
  };
  const what = top ? "reading the page" : `reading the frame ${frame.url()}`;
  const evaluate = (frames: ElementHandle<Element>[]) =>
    within(frame.evaluate(composeFrameHtml, { ...args, frames }), timeout, what);
  let result: ComposeResult;
  try {
    result = await evaluate(marked.map((m) => m.handle));
  } catch (err) {
    if (!top) return null;
    // A handle of a frame that went away must not cost the page itself: once more without frames.
    if (marked.length === 0 || (err instanceof BrowserError && err.code === "timeout")) throw err;
    marked.length = 0;
    result = await evaluate([]);
  } finally {
    dispose(handles);
  }

  if (readOut && result.read) readOut.read = result.read;
  run.shadowRoots += result.shadowRoots;
  if (result.shadowTruncated) run.truncated = true;
  // Visible iframes left unmarked because of maxDepth or maxFrames: content left out.
  if (result.unmarkedFrames > 0 && readable.length < children.length) run.truncated = true;
  const own = result.html;
  if (!top) {
    if (!own.trim()) return null;
    if (run.bytes + own.length > limits.maxBytes) {
      run.truncated = true;
      return null;
    }
  }
  run.bytes += own.length;
  if (marked.length === 0) return own;

  const markers = new RegExp(`<!--bf-frame:${token}:(\\d+)-->([\\s\\S]*?)<!--/bf-frame:${token}:\\1-->`, "g");
  const stitched = new Map<number, string>();
  for (const m of own.matchAll(markers)) {
    const id = Number(m[1]);
    const child = marked[id]?.frame;
    if (!child || stitched.has(id) || child.isDetached()) continue;
    if (!mayStartFrame(run)) break;
    const body = await composeFrame(child, depth + 1, run, visibleOnly, token).catch(() => null);
    if (body === null) continue;
    stitched.set(id, `<div data-frame-src="${escapeAttr(child.url())}">${body}</div>`);
    run.included++;
  }
  // Frames left out keep their iframe element, as the page has it.
  return own.replace(markers, (_all, id: string, iframe: string) => stitched.get(Number(id)) ?? iframe);
}

/**
 * collectFrameLinks over the whole page as a person sees it: the document, its open shadow roots and every
 * frame (hidden frames too unless visibleOnly; in visibleOnly a frame counts only if its iframe is
 * visible). Absolute http(s) URLs without fragment, de-duplicated, the first non-empty text kept, page
 * links first, then each frame's in frame-tree order. excludeExternal compares with the top page's host.
 */
export async function composedLinks(
  page: Page,
  opts: { visibleOnly: boolean; excludeExternal: boolean; limits?: Partial<ComposeLimits> },
): Promise<PageLink[]> {
  const run = startRun(opts.limits);
  const { limits } = run;
  const seen = new Map<string, PageLink>();
  let host: string | null = null;

  const visit = async (frame: Frame, depth: number): Promise<void> => {
    const top = depth === 0;
    const children =
      depth < limits.maxDepth
        ? frame
            .childFrames()
            .filter((c) => !c.isDetached())
            .slice(0, limits.maxFrames)
        : [];
    // Only visibleOnly needs the iframes: whether a person can see them is known in the parent.
    const handles =
      opts.visibleOnly && children.length ? await frameElements(children, limits.frameTimeoutMs) : [];
    const args: LinkArgs = {
      visibleOnly: opts.visibleOnly,
      excludeExternal: opts.excludeExternal,
      host,
      frames: [],
      maxShadowRoots: limits.maxShadowRoots,
    };
    const evaluate = (frames: (ElementHandle<Element> | null)[]) =>
      within(
        frame.evaluate(collectFrameLinks, { ...args, frames }),
        top ? limits.totalTimeoutMs : limits.frameTimeoutMs,
        top ? "reading the page's links" : `reading the links of the frame ${frame.url()}`,
      );
    let result: LinkResult;
    try {
      result = await evaluate(handles);
    } catch (err) {
      if (!top) return;
      if (handles.length === 0 || (err instanceof BrowserError && err.code === "timeout")) throw err;
      result = await evaluate([]);
    } finally {
      dispose(handles);
    }
    if (top) host = result.host;
    for (const link of result.links) {
      const prior = seen.get(link.url);
      if (!prior) seen.set(link.url, link);
      else if (!prior.text && link.text) prior.text = link.text;
    }
    for (const [i, child] of children.entries()) {
      if (opts.visibleOnly && !result.framesVisible[i]) continue;
      if (child.isDetached()) continue;
      if (!mayStartFrame(run)) return;
      await visit(child, depth + 1).catch(() => {});
    }
  };

  await visit(page.mainFrame(), 0);
  return Array.from(seen.values());
}

/**
 * The elements format's matches for one selector in the page (Playwright's selectors pierce open shadow
 * roots) and then in its frames, depth first, up to `max` in all; boxes of matches in frames are moved
 * into the page's viewport. An invalid selector throws as page.locator does; a failing frame is skipped.
 */
export async function elementsAcrossFrames(
  page: Page,
  selector: string,
  max: number,
  limits?: Partial<ComposeLimits>,
): Promise<ElementMatch[]> {
  const out = await page.locator(selector).evaluateAll(describeElements, max);
  const run = startRun(limits);
  const ms = run.limits.frameTimeoutMs;

  const visit = async (frame: Frame, depth: number, origin: { x: number; y: number }): Promise<void> => {
    if (depth >= run.limits.maxDepth) {
      if (frame.childFrames().length) run.truncated = true;
      return;
    }
    for (const child of frame.childFrames()) {
      if (out.length >= max) return;
      if (child.isDetached()) continue;
      if (!mayStartFrame(run)) return;
      let at: { x: number; y: number };
      try {
        const el = await within(child.frameElement(), ms, "finding an iframe");
        try {
          const o = await within(el.evaluate(frameContentOrigin), ms, "measuring an iframe");
          at = { x: origin.x + o.x, y: origin.y + o.y };
        } finally {
          el.dispose().catch(() => {});
        }
        const matches = await within(
          child.locator(selector).evaluateAll(describeElements, max - out.length),
          ms,
          `matching in the frame ${child.url()}`,
        );
        for (const m of matches.slice(0, max - out.length)) {
          if (m.box) m.box = { ...m.box, x: m.box.x + at.x, y: m.box.y + at.y };
          out.push(m);
        }
      } catch {
        continue;
      }
      await visit(child, depth + 1, at);
    }
  };

  if (out.length < max) await visit(page.mainFrame(), 0, { x: 0, y: 0 });
  return out;
}
