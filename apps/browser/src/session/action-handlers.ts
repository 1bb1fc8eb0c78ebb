import type { Action } from "@browserfleet/contracts";
import type { CDPSession, Page } from "playwright-core";
import elementScrollBy from "../injected/generated/element-scroll-by.ts";
import selectOptions from "../injected/generated/select-options.ts";
import windowScrollBy from "../injected/generated/window-scroll-by.ts";
import { ActionError, isTimeout, messageOf, shortReason } from "./action-errors.ts";
import { mediaTypeOf } from "./media-types.ts";
import { type ActionCtx, onElement, type SessionControls, stepTimeout, target } from "./targets.ts";
import { selectForTyping } from "./type-ready.ts";
import { runWait } from "./wait-action.ts";

type KeysOf<T> = T extends unknown ? keyof T : never;
/** An action's form: the one key of its object (type, press, click, ...). */
export type ActionKind = KeysOf<Action>;
/** What an action of that form carries, e.g. `{ ref, text }` for type. */
type ActionArgs<K extends ActionKind> = Extract<Action, { [P in K]: unknown }>[K];
type Handler<K extends ActionKind> = (page: Page, args: ActionArgs<K>, ctx: ActionCtx) => Promise<unknown>;

/** What an action found out while it ran, beyond having run. */
export interface ActionDone {
  /**
   * Typed text that no page script could see, the page having queued nothing since `ctx.seen` (see
   * type-ready.ts): the text set nothing going, so nothing after it is to be waited for.
   */
  typingUnseen?: true;
}

const NAVIGATION_TIMEOUT_MS = 30_000;
/** After clicking an upload button, how long to wait for the file chooser it opens. */
const CHOOSER_MS = 3_000;

/**
 * How each action form is performed; on an element, Playwright's errors become ones an agent can act on.
 * An action form missing here does not compile.
 */
export const ACTION_HANDLERS: { readonly [K in ActionKind]: Handler<K> } = {
  press: async (page, key) => {
    try {
      await page.keyboard.press(key);
    } catch (err) {
      const m = messageOf(err);
      if (/Unknown key/i.test(m))
        throw new ActionError(
          "invalid_key",
          `unknown key ${JSON.stringify(key)}: use Playwright key names such as Enter, Tab, Escape, Backspace, ArrowDown, PageDown, Control+A, Shift+Tab`,
        );
      throw err;
    }
  },
  navigate: async (page, { url }, ctx) => {
    const timeout = stepTimeout(ctx, NAVIGATION_TIMEOUT_MS);
    try {
      // Commit is enough here; the settle step then waits (bounded) for load.
      await page.goto(url, { waitUntil: "commit", timeout });
    } catch (err) {
      const m = messageOf(err);
      if (isTimeout(err))
        throw new ActionError("timeout", `${url} did not start loading within ${timeout} ms`);
      throw new ActionError("upstream_failed", `could not load ${url}: ${shortReason(m)}`);
    }
  },
  back: async (page, _args, ctx) => {
    if (!(await hasEarlierPage(page)))
      throw new ActionError(
        "no_history",
        "there is no earlier page to go back to in this session; use navigate with a URL instead",
      );
    const timeout = stepTimeout(ctx, NAVIGATION_TIMEOUT_MS);
    try {
      await page.goBack({ waitUntil: "commit", timeout });
    } catch (err) {
      if (isTimeout(err))
        throw new ActionError("timeout", `going back did not reach the earlier page within ${timeout} ms`);
      throw new ActionError("upstream_failed", `could not go back: ${shortReason(messageOf(err))}`);
    }
  },
  scroll: async (page, { ref, direction = "down", amount = 600 }, ctx) => {
    const dx = direction === "left" ? -amount : direction === "right" ? amount : 0;
    const dy = direction === "up" ? -amount : direction === "down" ? amount : 0;
    if (!ref) {
      await page.evaluate(windowScrollBy, { dx, dy });
      return;
    }
    const t = target(page, ref);
    // The element if it can scroll that way, else its nearest ancestor that can, else the page.
    await onElement(t, "scroll", ctx, (timeout, signal) =>
      t.locator.evaluate(elementScrollBy, { dx, dy }, { timeout, signal }),
    );
  },
  type: async (page, { ref, text, submit }, ctx) => {
    const t = target(page, ref);
    // A plain text field ready for it is checked and selected in one call, then the text goes in as
    // Playwright's fill sends it; anything else goes through fill, which waits for it (type-ready.ts).
    const ready = text ? await selectForTyping(t.locator, stepTimeout(ctx), ctx.seen) : "no";
    if (ready !== "no") await page.keyboard.insertText(text);
    else await onElement(t, "type", ctx, (timeout, signal) => t.locator.fill(text, { timeout, signal }));
    if (submit)
      await onElement(t, "type", ctx, (timeout, signal) => t.locator.press("Enter", { timeout, signal }));
    return ready === "unseen" && !submit ? { typingUnseen: true } : undefined;
  },
  click: async (page, { ref, button, clickCount }, ctx) => {
    const t = target(page, ref);
    await onElement(t, "click", ctx, (timeout, signal) =>
      t.locator.click({ button, clickCount, timeout, signal }),
    );
  },
  hover: async (page, { ref }, ctx) => {
    const t = target(page, ref);
    await onElement(t, "hover", ctx, (timeout, signal) => t.locator.hover({ timeout, signal }));
  },
  check: async (page, { ref }, ctx) => {
    const t = target(page, ref);
    await onElement(t, "check", ctx, (timeout, signal) => t.locator.check({ timeout, signal }));
  },
  uncheck: async (page, { ref }, ctx) => {
    const t = target(page, ref);
    await onElement(t, "uncheck", ctx, (timeout, signal) => t.locator.uncheck({ timeout, signal }));
  },
  select: async (page, { ref, values }, ctx) => {
    const t = target(page, ref);
    // Playwright would wait out the timeout for a missing option; name the options at once instead.
    const options = await onElement(t, "select", ctx, (timeout, signal) =>
      t.locator.evaluate(selectOptions, undefined, { timeout, signal }),
    );
    if (options) {
      const missing = values.filter((v) => !options.some(([value, label]) => v === value || v === label));
      if (missing.length) {
        const list = options.map(([value, label]) => (value === label ? value : `${value} (${label})`));
        throw new ActionError(
          "not_found",
          `${t.label} has no option ${missing.map((m) => JSON.stringify(m)).join(", ")}; its options (value or label) are: ${list.join(", ")}`,
        );
      }
    }
    await onElement(t, "select", ctx, (timeout, signal) =>
      t.locator.selectOption(values, { timeout, signal }),
    );
  },
  wait: runWait,
  dialog: async (_page, answer, ctx) => {
    sessionOf(ctx, "dialog").answerNextDialog(answer);
  },
  tab: async (_page, { id, close }, ctx) => {
    const session = sessionOf(ctx, "tab");
    if (close) await session.closeTab(id, ctx.deadline);
    else await session.switchTab(id, ctx.deadline);
  },
  upload: async (page, { ref, files }, ctx) => {
    const t = target(page, ref);
    const payload = files.map((f) => {
      // The api turns file links into their bytes before an act reaches a worker.
      if (!("data" in f))
        throw new ActionError("invalid_request", "a file link reached the browser unresolved");
      return { name: f.name, mimeType: f.type ?? mediaTypeOf(f.name), buffer: Buffer.from(f.data, "base64") };
    });
    const fileInput = await onElement(t, "upload", ctx, async () =>
      t.locator.and(page.locator("input[type=file]")).count(),
    );
    const oneFileOnly = () =>
      new ActionError(
        "too_many_files",
        `${t.label} takes one file (its input has no multiple attribute); upload one at a time`,
      );
    if (fileInput > 0) {
      try {
        await onElement(t, "upload", ctx, (timeout) => t.locator.setInputFiles(payload, { timeout }));
      } catch (err) {
        if (/Non-multiple file input/i.test(messageOf(err))) throw oneFileOnly();
        throw err;
      }
      return;
    }
    // A styled button that opens the page's hidden file input, as most sites have: click it and answer
    // the file chooser it opens.
    const chooser = page.waitForEvent("filechooser", { timeout: stepTimeout(ctx, CHOOSER_MS) });
    chooser.catch(() => {});
    await onElement(t, "upload", ctx, (timeout, signal) => t.locator.click({ timeout, signal }));
    const opened = await chooser.catch(() => undefined);
    if (!opened)
      throw new ActionError(
        "not_a_file_input",
        `${t.label} is neither a file input (<input type=file>) nor a control that opens a file chooser when clicked; take a controls map and use the ref of the upload button or input`,
      );
    if (!opened.isMultiple() && payload.length > 1) throw oneFileOnly();
    await opened.setFiles(payload, { timeout: stepTimeout(ctx) });
  },
  saveProfile: async (_page, { name }, ctx) => {
    const saved = await sessionOf(ctx, "saveProfile").saveProfile(name, ctx.deadline);
    if (!saved.saved) throw new ActionError(saved.error.code, saved.error.message);
  },
};

function sessionOf(ctx: ActionCtx, kind: string): SessionControls {
  if (!ctx.session) throw new ActionError("unavailable", `${kind} actions run only in a session`);
  return ctx.session;
}

export function actionKind(a: Action): ActionKind {
  return Object.keys(a)[0] as ActionKind;
}

/** A handler as looked up by a kind known only at run time; each takes its own form's args. */
type AnyHandler = (page: Page, args: unknown, ctx: ActionCtx) => Promise<unknown>;

/**
 * The handler of an action, or undefined when this worker does not know its form (an api newer than
 * the worker, during a rolling update).
 */
export function handlerOf(a: Action): { kind: ActionKind; args: unknown; run: AnyHandler | undefined } {
  const kind = actionKind(a);
  const handlers: Partial<Record<string, AnyHandler>> = ACTION_HANDLERS as Record<ActionKind, AnyHandler>;
  return {
    kind,
    args: (a as Record<string, unknown>)[kind],
    run: Object.hasOwn(handlers, kind) ? handlers[kind] : undefined,
  };
}

/**
 * Whether the tab has a page to go back to. A session's tab opens on about:blank, which
 * page.goBack() would happily return to, so that entry does not count.
 */
async function hasEarlierPage(page: Page): Promise<boolean> {
  let cdp: CDPSession | undefined;
  try {
    cdp = await page.context().newCDPSession(page);
    const { currentIndex, entries } = await cdp.send("Page.getNavigationHistory");
    const prev = entries[currentIndex - 1];
    return prev !== undefined && prev.url !== "about:blank";
  } catch {
    return true; // Not Chromium, or no CDP: let goBack decide.
  } finally {
    await cdp?.detach().catch(() => {});
  }
}
