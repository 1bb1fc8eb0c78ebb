import { SCROLL_HOOKS_GLOBAL } from "./scroll-hooks.ts";

/**
 * The bookkeeping `wait.until: auto` reads, installed in every frame before any page script runs
 * (context.addInitScript). It is plain JavaScript in a string, not a function: Playwright would
 * serialize a function's source, and the bundler's helpers are not in the page.
 *
 * It records, on the page's own clock (performance.now()):
 * - activity: DOM changes made after DOMContentLoaded (a parser building the document is not activity),
 *   in the document and in every shadow root, `style` attribute changes left out (animations);
 *   and apart from it the last change of any kind, style included;
 *   tracked timers firing; fetch and XHR finishing;
 * - pending work: fetch and XHR in flight (a request to a URL already fetched once is a poll and does
 *   not count), timers due within SHORT_MS that were not set by a chain of timers (a ticking loop),
 *   frame callbacks not asked for by a chain of frame callbacks (an animation loop),
 *   websockets and EventSources that have not yet received their first message, and a meta refresh;
 *   each only while it is young, so what never ends is ignored;
 * - when the page last posted a message (window or MessageChannel: a task it queued for itself, as
 *   React's scheduler does), how many frame callbacks it asked for are still to run, and how many hooks
 *   it set that run in a rendering step unasked (scroll listeners, Intersection and Resize observers).
 *
 * - whether page script can see text typed into a field (the typing hooks): a listener or handler the
 *   page set for what typing fires (beforeinput, input, select, selectionchange, composition, and the
 *   transitions, animations and scrolling a changed field may start), any inline handler for them in the
 *   document, any shadow root, any child frame (whose window could hand the page an unwatched
 *   addEventListener). None of these: typing runs no page script, so it queues nothing.
 *
 * The controls map's in-page pass (formats/control-selectors.ts) runs in Playwright's isolated world,
 * which sees none of this; it reads the state through a MouseEvent named SETTLE_GLOBAL dispatched on
 * the window, whose relatedTarget is a detached element the state is written onto as an attribute. The
 * listener is the window's first capturing one and stops the event there: no page script sees it.
 */
export const SETTLE_GLOBAL = "__browserfleetSettle";

export const SETTLE_SCRIPT = `(() => {
  const KEY = ${JSON.stringify(SETTLE_GLOBAL)};
  if (Object.prototype.hasOwnProperty.call(window, KEY)) return;
  const SHORT_MS = 1500;
  const MAX_TIMER_CHAIN = 3;
  const MAX_FRAME_CHAIN = 2;
  const now = () => performance.now();
  let lastActivity = -1;
  // Every timer, frame callback, message, request or stream the page asked for: unchanged between two
  // reads, the page queued nothing in between.
  let asked = 0;
  let domReady = document.readyState !== "loading";
  const touch = () => { if (domReady) lastActivity = now(); };
  document.addEventListener("DOMContentLoaded", () => { domReady = true; }, { once: true, capture: true });

  // Any change, style included: what tells that nothing on the page moved since a moment.
  let lastChange = -1;
  const observer = new MutationObserver((records) => {
    lastChange = now();
    for (const r of records) {
      if (r.type !== "attributes" || r.attributeName !== "style") { touch(); return; }
    }
  });
  const watch = (root) => {
    try {
      observer.observe(root, { childList: true, subtree: true, characterData: true, attributes: true });
    } catch (e) {}
  };
  watch(document);
  let shadowRoots = 0;
  const attach = Element.prototype.attachShadow;
  if (attach) {
    Element.prototype.attachShadow = function (init) {
      const root = attach.call(this, init);
      shadowRoots++;
      watch(root);
      return root;
    };
  }

  const timers = new Map();
  let chain = 0;
  const setT = window.setTimeout;
  const clearT = window.clearTimeout;
  window.setTimeout = function (fn, delay, ...args) {
    if (typeof fn !== "function") return setT.call(window, fn, delay, ...args);
    asked++;
    const ms = Number(delay) || 0;
    const depth = chain;
    let id = 0;
    const run = function () {
      const tracked = timers.delete(id);
      const before = chain;
      chain = depth + 1;
      try { return fn.apply(this, args); } finally {
        chain = before;
        if (tracked) touch();
      }
    };
    id = setT.call(window, run, delay);
    if (ms <= SHORT_MS && depth < MAX_TIMER_CHAIN) timers.set(id, now() + ms);
    return id;
  };
  window.clearTimeout = function (id) {
    timers.delete(id);
    return clearT.call(window, id);
  };

  // Frame callbacks: one asked for by a handler (not by a frame callback asking for the next frame, an
  // animation loop) is work the page has not done yet.
  const frames = new Set();
  let frameChain = 0;
  const raf = window.requestAnimationFrame;
  const caf = window.cancelAnimationFrame;
  if (raf && caf) {
    window.requestAnimationFrame = function (fn) {
      if (typeof fn !== "function") return raf.call(window, fn);
      asked++;
      const depth = frameChain;
      let id = 0;
      id = raf.call(window, function (t) {
        frames.delete(id);
        const before = frameChain;
        frameChain = depth + 1;
        try { return fn.call(this, t); } finally { frameChain = before; }
      });
      if (depth < MAX_FRAME_CHAIN) frames.add(id);
      return id;
    };
    window.cancelAnimationFrame = function (id) {
      frames.delete(id);
      return caf.call(window, id);
    };
  }
  // Messages the page posts to itself are tasks it queued: when it last did so.
  let lastPosted = -1;
  const Port = window.MessagePort;
  const portPost = Port.prototype.postMessage;
  Port.prototype.postMessage = function (...args) {
    lastPosted = now();
    asked++;
    return portPost.apply(this, args);
  };
  const postWindow = window.postMessage;
  window.postMessage = function (...args) {
    lastPosted = now();
    asked++;
    return postWindow.apply(this, args);
  };

  // What runs in the page's next rendering step, unasked by any frame callback: scroll events and
  // IntersectionObserver callbacks (counted by the scroll hooks script, page/scroll-hooks.ts, when the
  // context has it), and ResizeObserver callbacks.
  let resizeObservers = 0;
  const RO = window.ResizeObserver;
  if (RO) {
    window.ResizeObserver = new Proxy(RO, {
      construct(target, args, newTarget) {
        resizeObservers++;
        return Reflect.construct(target, args, newTarget);
      },
    });
  }
  const frameHooks = () => {
    const scrollHooks = window[${JSON.stringify(SCROLL_HOOKS_GLOBAL)}];
    return resizeObservers + (scrollHooks ? scrollHooks.hooks : 0);
  };

  // What typing text into a field fires or may start, for page script to see (lower case). Key events
  // are the key press's own; focus and blur run while the field is focused, before the state is read.
  const TYPING = new Set(["beforeinput", "input", "textinput", "select", "selectstart", "selectionchange",
    "compositionstart", "compositionupdate", "compositionend", "scroll", "scrollend",
    "transitionrun", "transitionstart", "transitionend", "transitioncancel", "webkittransitionend",
    "animationstart", "animationend", "animationiteration", "animationcancel",
    "webkitanimationstart", "webkitanimationend", "webkitanimationiteration"]);
  const INLINE_TYPING = Array.from(TYPING, (t) => "[on" + t + "]").join(",");
  // Listeners and handlers the page set for them (never counted down: conservative).
  let typingHooks = 0;
  // Proxies, so the page still sees native functions (toString, length, name).
  EventTarget.prototype.addEventListener = new Proxy(EventTarget.prototype.addEventListener, {
    apply(target, self, args) {
      if (TYPING.has(String(args[0]).toLowerCase())) typingHooks++;
      return Reflect.apply(target, self, args);
    },
  });
  const handlerOwners = [window, Window.prototype, Document.prototype, HTMLElement.prototype, Element.prototype];
  if (window.SVGElement) handlerOwners.push(SVGElement.prototype);
  if (window.MathMLElement) handlerOwners.push(MathMLElement.prototype);
  for (const owner of handlerOwners) {
    for (const type of TYPING) {
      const d = Object.getOwnPropertyDescriptor(owner, "on" + type);
      if (!d || !d.set) continue;
      // One that cannot be watched: typing is never taken as unseen on this page.
      if (!d.configurable) { typingHooks = Infinity; continue; }
      Object.defineProperty(owner, "on" + type, {
        ...d,
        set: new Proxy(d.set, {
          apply(target, self, args) {
            if (args[0]) typingHooks++;
            return Reflect.apply(target, self, args);
          },
        }),
      });
    }
  }
  // What a read before typing needs: the page queued nothing since an earlier read (origin, asked),
  // sets nothing going at its next rendering step, and no page script can see the typing.
  const typingState = () => ({
    origin: performance.timeOrigin,
    asked,
    pendingFrames: frames.size,
    frameHooks: frameHooks(),
    typingHooks: typingHooks + shadowRoots + window.length + (document.querySelector(INLINE_TYPING) ? 1 : 0),
  });

  const afterTask = (then) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => then();
    portPost.call(channel.port2, 0);
  };

  const requests = new Map();
  const fetched = new Set();
  let nextRequest = 1;
  const begin = (url) => {
    const key = String(url);
    if (fetched.has(key)) return 0;
    fetched.add(key);
    const id = nextRequest++;
    requests.set(id, now());
    return id;
  };
  const end = (id) => {
    if (id && requests.delete(id)) touch();
  };
  const origFetch = window.fetch;
  if (origFetch) {
    window.fetch = function (input, init) {
      let url = "";
      try { url = new URL(input instanceof Request ? input.url : String(input), location.href).href; } catch (e) {}
      asked++;
      const id = begin(url);
      const p = origFetch.call(this, input, init);
      p.then(() => end(id), () => end(id));
      return p;
    };
  }
  const XHR = window.XMLHttpRequest;
  if (XHR) {
    const open = XHR.prototype.open;
    const send = XHR.prototype.send;
    XHR.prototype.open = function (method, url, ...rest) {
      try { this.__bfUrl = new URL(String(url), location.href).href; } catch (e) { this.__bfUrl = String(url); }
      return open.call(this, method, url, ...rest);
    };
    XHR.prototype.send = function (body) {
      asked++;
      const id = begin(this.__bfUrl || "");
      this.addEventListener("loadend", () => end(id), { once: true });
      return send.call(this, body);
    };
  }

  const streams = new Map();
  const wrapStream = (Ctor) => {
    if (!Ctor) return Ctor;
    const Wrapped = function (...args) {
      const s = new Ctor(...args);
      asked++;
      const id = nextRequest++;
      streams.set(id, now());
      const done = () => { if (streams.delete(id)) touch(); };
      s.addEventListener("message", done, { once: true });
      s.addEventListener("error", done, { once: true });
      s.addEventListener("close", done, { once: true });
      return s;
    };
    Wrapped.prototype = Ctor.prototype;
    Object.setPrototypeOf(Wrapped, Ctor);
    return Wrapped;
  };
  window.WebSocket = wrapStream(window.WebSocket);
  window.EventSource = wrapStream(window.EventSource);

  // A meta refresh to another page that is due soon is pending work: Chromium follows it itself.
  const refreshDue = () => {
    const meta = document.querySelector('meta[http-equiv="refresh" i]');
    if (!meta) return -1;
    const m = /^\\s*(\\d+(?:\\.\\d+)?)\\s*(?:[;,]\\s*(?:url\\s*=\\s*)?['"]?([^'"]*)['"]?)?\\s*$/i.exec(meta.getAttribute("content") || "");
    if (!m || !m[2]) return -1;
    try {
      if (new URL(m[2], location.href).href === location.href) return -1;
    } catch (e) { return -1; }
    const loaded = performance.timing && performance.timing.loadEventEnd
      ? performance.timing.loadEventEnd - performance.timeOrigin
      : now();
    return Math.max(loaded, 0) + Number(m[1]) * 1000;
  };

  const state = (youngMs) => {
    listen();
    const t = now();
    let pendingRequests = 0;
    for (const started of requests.values()) if (t - started < youngMs) pendingRequests++;
    let pendingStreams = 0;
    for (const started of streams.values()) if (t - started < youngMs) pendingStreams++;
    let nextTimer = -1;
    for (const due of timers.values()) if (due >= t - 50 && (nextTimer < 0 || due < nextTimer)) nextTimer = due;
    return {
      now: t,
      readyState: document.readyState,
      lastActivity,
      pendingRequests,
      pendingStreams,
      nextTimer,
      refreshAt: refreshDue(),
      height: document.documentElement ? document.documentElement.scrollHeight : 0,
      lastChange,
      origin: performance.timeOrigin,
      asked,
      pendingFrames: frames.size,
      lastPosted,
      frameHooks: frameHooks(),
    };
  };

  const bridge = (e) => {
    const out = e.relatedTarget;
    if (!out || typeof out.setAttribute !== "function" || out.isConnected) return;
    e.stopImmediatePropagation();
    out.setAttribute("data-state", JSON.stringify(state(Number(e.detail) || 0)));
  };
  const typingBridge = (e) => {
    const out = e.relatedTarget;
    if (!out || typeof out.setAttribute !== "function" || out.isConnected) return;
    e.stopImmediatePropagation();
    out.setAttribute("data-state", JSON.stringify(typingState()));
  };
  // document.open() (page.setContent) takes the window's listeners away: every read puts it back (adding
  // the same listener twice adds it once).
  const listen = () => {
    window.addEventListener(KEY, bridge, true);
    window.addEventListener(KEY + ":typing", typingBridge, true);
  };
  listen();

  Object.defineProperty(window, KEY, {
    enumerable: false,
    configurable: false,
    value: {
      state,
      // Once the page has run a task, and the frame callbacks its handlers asked for if any: the state.
      // At once when, since seen (what a read before the action found), the page asked for nothing and
      // set no hook its next rendering step runs: that task would run none of its work.
      handlersRan: (youngMs, seen) =>
        seen && seen.origin === performance.timeOrigin && seen.asked === asked && !frames.size && !frameHooks()
          ? Promise.resolve(state(youngMs))
          : new Promise((resolve) => {
              afterTask(() => {
                if (!frames.size || !raf) return resolve(state(youngMs));
                raf.call(window, () => afterTask(() => resolve(state(youngMs))));
              });
            }),
    },
  });
})();`;
