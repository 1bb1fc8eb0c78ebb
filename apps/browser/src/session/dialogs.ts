import { DIALOG_KINDS, type DialogSeen, MAX_DIALOG_TEXT, MAX_DIALOGS_LISTED } from "@browserfleet/contracts";
import type { BrowserContext, Dialog } from "playwright-core";

export type DialogKind = (typeof DIALOG_KINDS)[number];

/** A dialog action's answer. */
export interface DialogAnswer {
  accept: boolean;
  promptText?: string;
}

/**
 * How a dialog is answered with no dialog action for it: an alert is accepted (it only informs), a confirm
 * and a prompt are dismissed (Cancel: nothing destructive is agreed to unasked), a beforeunload is accepted
 * (the navigation the agent asked for goes on).
 */
export function defaultAccept(kind: DialogKind): boolean {
  return kind === "alert" || kind === "beforeunload";
}

export function dialogKind(type: string): DialogKind {
  return (DIALOG_KINDS as readonly string[]).includes(type) ? (type as DialogKind) : "alert";
}

/** A dialog's text as reported: at most MAX_DIALOG_TEXT characters, a cut one ending in "…". */
export function cutText(s: string, max = MAX_DIALOG_TEXT): string {
  if (s.length <= max) return s;
  // Not between the halves of a surrogate pair.
  let end = max - 1;
  const code = s.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${s.slice(0, end)}…`;
}

/** What the report says of a dialog answered this way (the answer is given separately). */
export function dialogReport(
  d: { kind: DialogKind; message: string; defaultValue: string },
  answer: DialogAnswer | undefined,
  tab: string,
  during: number | undefined,
): { seen: DialogSeen; accept: boolean; promptText?: string } {
  const accept = answer ? answer.accept : defaultAccept(d.kind);
  const promptText = d.kind === "prompt" && accept ? (answer?.promptText ?? d.defaultValue) : undefined;
  return {
    accept,
    ...(promptText !== undefined ? { promptText } : {}),
    seen: {
      kind: d.kind,
      message: cutText(d.message),
      ...(d.kind === "prompt" ? { defaultValue: cutText(d.defaultValue) } : {}),
      answer: accept ? "accepted" : "dismissed",
      ...(promptText !== undefined ? { promptText: cutText(promptText) } : {}),
      by: answer ? "action" : "default",
      tab,
      ...(during !== undefined ? { during } : {}),
    },
  };
}

/**
 * Answers every dialog of a session's context, each at once: by the next queued dialog action's answer,
 * else by its default. Playwright dismisses a dialog by itself only when nothing listens for it, so this
 * listener never leaves one open (an answer that fails, its page gone, is dropped).
 */
export class SessionDialogs {
  #queue: DialogAnswer[] = [];
  #seen: DialogSeen[] = [];
  #omitted = 0;
  #during: number | undefined;

  constructor(
    context: BrowserContext,
    private readonly tabOf: (d: Dialog) => string,
  ) {
    context.on("dialog", (d) => this.#answer(d));
  }

  #answer(d: Dialog): void {
    const queued = this.#queue.shift();
    const { seen, accept, promptText } = dialogReport(
      { kind: dialogKind(d.type()), message: d.message(), defaultValue: d.defaultValue() },
      queued,
      this.tabOf(d),
      this.#during,
    );
    if (this.#seen.length < MAX_DIALOGS_LISTED) this.#seen.push(seen);
    else this.#omitted++;
    (accept ? d.accept(promptText) : d.dismiss()).catch(() => {});
  }

  /** The next dialog is answered so (after any answers queued before). */
  answerNext(a: DialogAnswer): void {
    this.#queue.push(a);
  }

  /** Which action of an act is running, for the report; undefined between actions' runs. */
  set during(index: number | undefined) {
    this.#during = index;
  }

  /** The act's actions are done: answers no dialog used are dropped. */
  endActions(): void {
    this.#queue = [];
    this.#during = undefined;
  }

  /** The dialogs seen since the last call, as a result reports them (the first listed, the rest counted). */
  take(): { dialogs?: DialogSeen[]; dialogsOmitted?: number } {
    const seen = this.#seen;
    const omitted = this.#omitted;
    this.#seen = [];
    this.#omitted = 0;
    return { ...(seen.length ? { dialogs: seen } : {}), ...(omitted ? { dialogsOmitted: omitted } : {}) };
  }
}
