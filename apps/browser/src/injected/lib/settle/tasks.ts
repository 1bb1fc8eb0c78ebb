import { type Book, now, touch } from "./book.ts";

/** A timer due within this is work the page has not done yet. */
const SHORT_MS = 1500;
/** A timer set by this many timers in a row is a ticking loop: not waited for. */
const MAX_TIMER_CHAIN = 3;
/** A frame callback asked for by this many frame callbacks in a row is an animation loop. */
const MAX_FRAME_CHAIN = 2;

// biome-ignore lint/suspicious/noExplicitAny: the page's own functions, called as the page called them
type AnyFunction = (...args: any[]) => any;
/** The browser's timer functions (the host's types know Node's as well). */
type SetTimeout = (handler: TimerHandler, timeout?: number, ...args: unknown[]) => number;
type ClearTimeout = (id?: number) => void;

/** The tasks the page queued for itself, as the settle bookkeeping keeps them. */
export interface Tasks {
  /** Short timers not set by a chain of timers, by id: when each is due. */
  timers: Map<number, number>;
  /** Frame callbacks a handler asked for (not an animation loop's) that have not run yet, by id. */
  frames: Set<number>;
  /** When the page last posted a message, a task it queued for itself (-1: never). */
  lastPosted: number;
  /** The browser's own requestAnimationFrame, before the page could replace it. */
  raf: typeof window.requestAnimationFrame | undefined;
  /** Runs `then` after a task: a message of our own, which the page does not count as its own. */
  afterTask(then: () => void): void;
}

/** Watches the timers, frame callbacks and messages the page queues. */
export function watchTasks(book: Book): Tasks {
  const timers = new Map<number, number>();
  const frames = new Set<number>();
  let chain = 0;
  const setT = window.setTimeout as unknown as SetTimeout;
  const clearT = window.clearTimeout as unknown as ClearTimeout;
  window.setTimeout = function (this: unknown, fn: TimerHandler, delay?: number, ...args: unknown[]) {
    if (typeof fn !== "function") return setT.call(window, fn, delay, ...args);
    book.asked++;
    const ms = Number(delay) || 0;
    const depth = chain;
    let id = 0;
    const run = function (this: unknown) {
      const tracked = timers.delete(id);
      const before = chain;
      chain = depth + 1;
      try {
        return (fn as AnyFunction).apply(this, args);
      } finally {
        chain = before;
        if (tracked) touch(book);
      }
    };
    id = setT.call(window, run, delay);
    if (ms <= SHORT_MS && depth < MAX_TIMER_CHAIN) timers.set(id, now() + ms);
    return id;
  } as unknown as typeof window.setTimeout;
  // biome-ignore lint/complexity/useArrowFunction: a function, as the page's replaced one always was
  window.clearTimeout = function (id?: number) {
    timers.delete(id as number);
    return clearT.call(window, id);
  } as typeof window.clearTimeout;

  // Frame callbacks: one asked for by a handler (not by a frame callback asking for the next frame, an
  // animation loop) is work the page has not done yet.
  let frameChain = 0;
  const raf = window.requestAnimationFrame;
  const caf = window.cancelAnimationFrame;
  if (raf && caf) {
    // biome-ignore lint/complexity/useArrowFunction: a function, as the page's replaced one always was
    window.requestAnimationFrame = function (fn: FrameRequestCallback) {
      if (typeof fn !== "function") return raf.call(window, fn);
      book.asked++;
      const depth = frameChain;
      let id = 0;
      id = raf.call(window, function (this: unknown, t: number) {
        frames.delete(id);
        const before = frameChain;
        frameChain = depth + 1;
        try {
          return fn.call(this, t);
        } finally {
          frameChain = before;
        }
      });
      if (depth < MAX_FRAME_CHAIN) frames.add(id);
      return id;
    };
    // biome-ignore lint/complexity/useArrowFunction: a function, as the page's replaced one always was
    window.cancelAnimationFrame = function (id: number) {
      frames.delete(id);
      return caf.call(window, id);
    };
  }

  const tasks: Tasks = { timers, frames, lastPosted: -1, raf, afterTask: () => {} };
  // Messages the page posts to itself are tasks it queued: when it last did so.
  const Port = window.MessagePort;
  const portPost = Port.prototype.postMessage as AnyFunction;
  Port.prototype.postMessage = function (this: MessagePort, ...args: unknown[]) {
    tasks.lastPosted = now();
    book.asked++;
    return portPost.apply(this, args);
  };
  const postWindow = window.postMessage as AnyFunction;
  window.postMessage = function (this: Window, ...args: unknown[]) {
    tasks.lastPosted = now();
    book.asked++;
    return postWindow.apply(this, args);
  };
  tasks.afterTask = (then) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => then();
    portPost.call(channel.port2, 0);
  };
  return tasks;
}
