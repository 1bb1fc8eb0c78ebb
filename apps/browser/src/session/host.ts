import { decodeJson, encodeJson, SESSION_ENDED_SUBJECT, sessionSubject } from "@browserfleet/bus";
import {
  type ActResponse,
  type DownloadSeen,
  describeIssues,
  type Format,
  MAX_TABS,
  type PageChanges,
  type ProfileSaved,
  type SessionActMessage,
  type SessionActReply,
  type SessionCloseReply,
  type SessionEnded,
  type SessionEndReason,
  type SessionOpenReply,
  type SessionOpenTask,
  type SessionRequest,
  sessionActMessage,
  type TabInfo,
} from "@browserfleet/contracts";
import type { Msg, NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Browser, BrowserContext } from "playwright-core";
import type { ChromiumKeeper } from "../chromium.ts";
import { errorOf, failureOf, isBrowserGone } from "../errors.ts";
import type { Control } from "../formats/controls-tree.ts";
import { type FormatOutcome, renderFormats } from "../formats/render.ts";
import type { BrowserMetrics } from "../metrics.ts";
import type { EgressRoute, EgressRoutes } from "../net/egress-routes.ts";
import type { GuardProxy } from "../net/guard-proxy.ts";
import { newTaskContext } from "../page/context.ts";
import { pageFacts } from "../page/facts.ts";
import { openPage } from "../page/navigation.ts";
import { seenAsOf } from "../page/places.ts";
import {
  defaultSettleBudget,
  type Seen,
  type PageState as SettledState,
  type SettleReason,
  seenIn,
  settlePage,
  youngFor,
} from "../page/settle.ts";
import { ACT_FINISH_MS, ACT_QUIET_MS, ACT_SETTLE_MAX_MS } from "../settle-windows.ts";
import { type ActSession, runActions } from "./actions.ts";
import { type PageState, pageChanges } from "./changes.ts";
import { SessionDialogs } from "./dialogs.ts";
import { SessionDownloads } from "./downloads.ts";
import { LiveView } from "./live-view.ts";
import { PROFILE_SAVE_MS, saveSessionProfile } from "./profile-save.ts";
import { type QuietRead, quietRead } from "./quiet-read.ts";
import { SessionRecorder } from "./recorder.ts";
import { SessionTabs, shownRef } from "./tabs.ts";

interface LiveSession {
  id: string;
  request: SessionRequest;
  context: BrowserContext;
  /** The SSRF guard its traffic goes through (a route to its egress proxy, when it has one). */
  guard: GuardProxy;
  /** Its tabs: actions and formats are of the active one. */
  tabs: SessionTabs;
  dialogs: SessionDialogs;
  openedAt: number;
  lastActiveAt: number;
  idleMs: number;
  maxMs: number;
  timer?: NodeJS.Timeout;
  subs: Subscription[];
  /** Acts on one session run one after another. */
  queue: Promise<unknown>;
  /** The page as the last result with a controls map showed it: what changesOnly compares with. */
  shown?: PageState;
  /** When (the page's clock, in which document) a pass found no overlay to clear. */
  overlaysClear?: OverlaysClear;
  /** What the last read of the page in an act found: the next act's first action starts from it. */
  seen?: Seen;
  downloads: SessionDownloads;
  /** What the running act's last saveProfile action saved. */
  saved?: ProfileSaved;
  /** What saving the state as the session ended came to (profile.save). */
  savedAtEnd?: ProfileSaved;
  /** Its live view, unless opened with liveView off. */
  live?: LiveView;
  /** Its recording, when opened with record. */
  recorder?: SessionRecorder;
  ended: Promise<void>;
  end(reason: SessionEndReason): Promise<void>;
}

/**
 * The live sessions of one browser worker. Each holds a browser context in one slot and answers on its
 * own subjects (`fleet.session.<id>.act|close`); when it ends for any reason it unsubscribes first, so
 * a later request finds no responder and the api answers 410 at once.
 */
export class SessionHost {
  readonly #sessions = new Map<string, LiveSession>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly workerId: string,
    private readonly egress: EgressRoutes,
    private readonly chromium: ChromiumKeeper,
    private readonly metrics: BrowserMetrics,
    private readonly onChange: () => void,
  ) {}

  count(): number {
    return this.#sessions.size;
  }

  /** Resolves when the session ends: the slot it holds is free again. */
  held(sessionId: string): Promise<void> | undefined {
    return this.#sessions.get(sessionId)?.ended;
  }

  async open(task: SessionOpenTask): Promise<SessionOpenReply> {
    const started = performance.now();
    const req = task.request;
    let context: BrowserContext | undefined;
    let route: EgressRoute | undefined;
    let browser: Browser;
    let recorder: SessionRecorder | undefined;
    try {
      browser = await this.chromium.browser();
      route = await this.egress.open(req);
      context = await newTaskContext(browser, req, {
        acceptDownloads: true,
        ...(task.profileState ? { profileState: task.profileState } : {}),
        ...(route.server ? { egress: route.server } : {}),
      });
      // Before the first page: its tabs and dialogs are the session's from its first moment.
      let lost = () => {};
      const tabs = new SessionTabs(context, MAX_TABS, () => lost());
      const dialogs = new SessionDialogs(context, (d) => tabs.idOf(d.page()) ?? tabs.activeId);
      const downloads = new SessionDownloads(context, (p) => tabs.idOf(p) ?? tabs.activeId);
      if (req.record)
        recorder = await SessionRecorder.attach(this.nc, task.sessionId, context, tabs, this.metrics);
      const opened = await openPage(context, route.guard, req);
      const { page, status } = opened;
      if (recorder && req.url === undefined) await recorder.restartIn(page);
      const outcome = await renderFormats(page, req, req.formats);
      const session = this.#track(task, context, route, tabs, dialogs, downloads, browser, recorder);
      lost = () => void session.end("browser_lost");
      session.shown = stateShown(outcome);
      const facts = await pageFacts(page, outcome, req.url !== undefined, opened);
      this.metrics.sessionsOpened.inc();
      const dialogsSeen = dialogs.take();
      const blocked = tabs.takeBlocked();
      const downloaded = await downloads.take(
        Date.now() + OPEN_DOWNLOADS_MS,
        req.formats.includes("markdown"),
      );
      const seenAs = seenAsOf(req, route);
      return {
        ok: true,
        workerId: this.workerId,
        result: {
          success: true,
          sessionId: task.sessionId,
          data: outcome.data,
          errors: outcome.errors,
          tabs: await tabs.opened(Date.now() + TABS_WAIT_MS).then(() => tabs.list()),
          ...dialogsSeen,
          ...(blocked.length ? { blockedTabs: blocked } : {}),
          ...downloaded,
          metadata: {
            ...facts,
            statusCode: status,
            formats: req.formats,
            ...(seenAs ? { seenAs } : {}),
            expiresAt: this.#expiresAt(session),
            ms: Math.round(performance.now() - started),
          },
        },
      };
    } catch (err) {
      recorder?.discard();
      await context?.close().catch(() => {});
      await route?.release().catch(() => {});
      return { ok: false, error: failureOf(err) };
    }
  }

  /** End every session (the worker is stopping, or its browser is gone). */
  async closeAll(reason: SessionEndReason): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((s) => s.end(reason)));
  }

  #expiresAt(s: LiveSession): string {
    return new Date(Math.min(s.lastActiveAt + s.idleMs, s.openedAt + s.maxMs)).toISOString();
  }

  #arm(s: LiveSession): void {
    clearTimeout(s.timer);
    const now = Date.now();
    const idleAt = s.lastActiveAt + s.idleMs;
    const maxAt = s.openedAt + s.maxMs;
    s.timer = setTimeout(
      () => void s.end(idleAt <= maxAt ? "idle" : "max_lifetime"),
      Math.max(0, Math.min(idleAt, maxAt) - now),
    );
  }

  #track(
    task: SessionOpenTask,
    context: BrowserContext,
    route: EgressRoute,
    tabs: SessionTabs,
    dialogs: SessionDialogs,
    downloads: SessionDownloads,
    browser: Browser,
    recorder: SessionRecorder | undefined,
  ): LiveSession {
    let endOnce: Promise<void> | undefined;
    let resolveEnded!: () => void;
    const now = Date.now();
    const s: LiveSession = {
      id: task.sessionId,
      request: task.request,
      context,
      guard: route.guard,
      tabs,
      dialogs,
      downloads,
      openedAt: now,
      lastActiveAt: now,
      ...(recorder ? { recorder } : {}),
      idleMs: task.idleMs,
      maxMs: task.maxMs,
      subs: [],
      queue: Promise.resolve(),
      ended: new Promise<void>((r) => {
        resolveEnded = r;
      }),
      end: (reason) => {
        endOnce ??= (async () => {
          clearTimeout(s.timer);
          for (const sub of s.subs) sub.unsubscribe();
          this.#sessions.delete(s.id);
          await s.live?.close(reason);
          browser.off("disconnected", onBrowserGone);
          // A gone browser has no state left to save.
          if (task.request.profile?.save && reason !== "browser_lost")
            s.savedAtEnd = await saveSessionProfile(
              this.nc,
              s,
              undefined,
              reason,
              Date.now() + (reason === "closed" ? CLOSE_SAVE_MS : PROFILE_SAVE_MS),
            );
          // What the pages did up to here: the recording's last part goes before their context closes.
          await s.recorder?.close(reason, Date.now() + RECORDING_CLOSE_MS);
          await context.close().catch(() => {});
          await route.release().catch(() => {});
          const ended: SessionEnded = {
            sessionId: s.id,
            workerId: this.workerId,
            reason,
            at: new Date().toISOString(),
          };
          this.nc.publish(SESSION_ENDED_SUBJECT, encodeJson(ended));
          this.metrics.sessionsClosed.inc({ reason });
          this.onChange();
          resolveEnded();
        })();
        return endOnce;
      },
    };
    if (task.request.liveView !== "off")
      s.live = new LiveView(
        this.nc,
        s.id,
        context,
        tabs,
        task.request.liveView === "interactive",
        this.metrics,
      );
    const onBrowserGone = () => void s.end("browser_lost");
    browser.on("disconnected", onBrowserGone);
    s.subs.push(
      this.nc.subscribe(sessionSubject(s.id, "act"), { callback: (_e, msg) => this.#onAct(s, msg) }),
      this.nc.subscribe(sessionSubject(s.id, "close"), {
        callback: (_e, msg) => {
          void s.end("closed").then(() => {
            const reply: SessionCloseReply = {
              ok: true,
              closedAt: new Date().toISOString(),
              ...(s.savedAtEnd ? { profile: s.savedAtEnd } : {}),
            };
            msg.respond(encodeJson(reply));
          });
        },
      }),
    );
    this.#sessions.set(s.id, s);
    this.#arm(s);
    this.onChange();
    return s;
  }

  #onAct(s: LiveSession, msg: Msg): void {
    s.queue = s.queue.then(async () => {
      const read = readActMessage(msg.data);
      if (!read.ok) this.metrics.tasksRefused.inc({ kind: "act", reason: read.reason });
      // A live view's frames wait until the act has answered (see LiveView.pause).
      if (read.ok) s.live?.pause();
      const reply = read.ok ? await this.#act(s, read.value) : read.reply;
      let payload = encodeJson(reply);
      const max = this.nc.info?.max_payload ?? 1024 * 1024;
      if (payload.byteLength > max) {
        payload = encodeJson({
          ok: false,
          error: {
            code: "result_too_large",
            message: `the result is ${payload.byteLength} bytes, more than the bus carries; ask for fewer or smaller formats`,
            status: 502,
          },
        } satisfies SessionActReply);
      }
      msg.respond(payload);
      s.live?.resume();
      s.recorder?.followActiveTab();
    });
  }

  async #act(s: LiveSession, m: SessionActMessage): Promise<SessionActReply> {
    const started = performance.now();
    const actStart = Date.now();
    s.lastActiveAt = actStart;
    delete s.saved;
    this.#arm(s);
    const end = this.metrics.actDuration.startTimer();
    try {
      const formats = m.formats ?? s.request.formats;
      // Changes are told from a fresh controls map, whatever else was asked for.
      const rendered =
        m.changesOnly && !formats.includes("controls") ? [...formats, "controls" as const] : formats;
      // A controls map alone is read right after the last action, with the page's state at that moment:
      // kept when the page had nothing left to do (see quietRead), which spares waiting for a task and a
      // frame (after a key press, the next frame) and the round trips of a settle and a title.
      const speculate =
        rendered.length === 1 && rendered[0] === "controls"
          ? () =>
              quietRead(s.tabs.active, {
                visibleOnly: s.request.controls?.visibleOnly ?? true,
                limit: s.request.controls?.limit ?? 200,
                youngMs: youngFor(actStart),
                quietMs: ACT_QUIET_MS,
                overlaysClear: (state) =>
                  s.request.overlays === "keep" || overlaysStillClear(s.overlaysClear, state),
              })
          : undefined;
      const startTab = s.tabs.activeId;
      let run: ActionsRun;
      try {
        run = await runActions(s.tabs.active, s.guard, m.actions, {
          budgetMs: m.budgetMs,
          onAction: (action, ok, _ms, a) => {
            this.metrics.actions.inc({ action, outcome: ok ? "ok" : "failed" });
            s.live?.action(a, ok);
            s.recorder?.action(a, ok);
          },
          ...(speculate ? { speculate } : {}),
          ...(s.seen ? { seen: s.seen } : {}),
          session: actSession(s, (name, deadline) => this.#saveProfile(s, name, deadline)),
        });
      } finally {
        s.dialogs.endActions();
      }
      // Another tab's page: what the last read saw of the first one says nothing of it.
      if (s.tabs.activeId !== startTab) {
        delete run.state;
        delete run.speculated;
      }
      // Everything after the actions answers by one deadline: on a starved machine the settle, the render
      // or a tab's title can each take seconds, and an agent is better told what its actions did than
      // left to time out without knowing.
      const answerBy = actStart + m.budgetMs + ACT_FINISH_MS;
      const finished = await beforeDeadline(this.#finish(s, run, m, actStart, rendered, answerBy), answerBy);
      let page: Finished;
      if (finished) {
        page = finished;
        if (page.overlaysClear !== false) s.overlaysClear = page.overlaysClear;
        s.seen = page.seen;
        if (page.shown) s.shown = page.shown;
      } else {
        this.metrics.actsUnrendered.inc();
        // What the page looked like is unknown: the next act starts its reads afresh.
        delete s.seen;
        page = unrendered(s, rendered);
      }
      const { outcome, changes, facts, tabs, downloads } = page;
      const dialogs = s.dialogs.take();
      const blocked = s.tabs.takeBlocked();
      s.lastActiveAt = Date.now();
      this.#arm(s);
      const result: ActResponse = {
        success: run.stoppedAt === null,
        sessionId: s.id,
        actions: run.outcomes,
        stoppedAt: run.stoppedAt,
        data: outcome.data,
        ...(changes ? { changes } : {}),
        errors: outcome.errors,
        ...(tabs ? { tabs } : {}),
        ...dialogs,
        ...(blocked.length ? { blockedTabs: blocked } : {}),
        ...(downloads ? { downloads } : {}),
        ...(s.saved ? { profile: s.saved } : {}),
        metadata: {
          ...facts,
          formats,
          expiresAt: this.#expiresAt(s),
          ms: Math.round(performance.now() - started),
        },
      };
      return { ok: true, result };
    } catch (err) {
      const { message } = errorOf(err);
      if (s.tabs.active.isClosed() || isBrowserGone(message)) {
        void s.end("browser_lost");
        return {
          ok: false,
          error: {
            code: "session_lost",
            message: "the browser holding this session is gone; open a new session",
            status: 410,
          },
        };
      }
      return { ok: false, error: failureOf(err) };
    } finally {
      end();
    }
  }

  async #saveProfile(s: LiveSession, name: string | undefined, deadline: number): Promise<ProfileSaved> {
    s.saved = await saveSessionProfile(this.nc, s, name, "action", deadline);
    return s.saved;
  }

  /**
   * After the actions: the page rendered, its facts, the changes since the last result and the tabs. The
   * session is not changed here but by the caller, once this answered in time (see ACT_FINISH_MS).
   */
  async #finish(
    s: LiveSession,
    run: ActionsRun,
    m: SessionActMessage,
    actStart: number,
    rendered: readonly Format[],
    answerBy: number,
  ): Promise<Finished> {
    const { outcome, settle, title, seen, overlaysClear } = run.speculated
      ? { ...quietOutcome(run.speculated), overlaysClear: false as const }
      : await this.#settleAndRender(s, run.state, actStart, rendered);
    tabRefs(outcome, s.tabs.activeId);
    const shown = stateShown(outcome);
    const changes = m.changesOnly && shown ? pageChanges(s.shown, shown) : undefined;
    if (m.changesOnly) delete outcome.data.controls;
    const facts = await pageFacts(s.tabs.active, outcome, true, settle ? { settle } : {}, title);
    await s.tabs.opened(Date.now() + TABS_WAIT_MS);
    const tabs = await s.tabs.list();
    // What the actions downloaded, waited for while the act has time (a little kept to answer in).
    const { downloads } = await s.downloads.take(answerBy - 500, rendered.includes("markdown"));
    return {
      outcome,
      facts,
      tabs,
      ...(downloads ? { downloads } : {}),
      overlaysClear,
      ...(changes ? { changes } : {}),
      ...(seen ? { seen } : {}),
      ...(shown ? { shown } : {}),
    };
  }

  /**
   * After the actions: wait for what they set going (a menu built by script, results fetched), then
   * render the formats.
   */
  async #settleAndRender(
    s: LiveSession,
    first: SettledState | undefined,
    actStart: number,
    rendered: readonly Format[],
  ): Promise<ActPage & { overlaysClear: OverlaysClear | undefined | false }> {
    const settled = Date.now();
    const page = s.tabs.active;
    const settle = await settlePage(page, {
      deadline: settled + Math.min(ACT_SETTLE_MAX_MS, s.request.wait?.budget ?? defaultSettleBudget()),
      proxy: s.guard,
      quietMs: ACT_QUIET_MS,
      // A long-poll or stream the page had open before the act is not the act's to wait for.
      since: actStart,
      first,
    }).catch(() => undefined);
    const unchanged = overlaysStillClear(s.overlaysClear, settle?.state);
    // The page is settled and no overlay will be cleared (which may change it): its title is read
    // beside the formats rather than after them.
    const title = unchanged || s.request.overlays === "keep" ? page.title() : undefined;
    title?.catch(() => {});
    const outcome = await renderFormats(
      page,
      unchanged ? { ...s.request, overlays: "keep" } : s.request,
      rendered,
    );
    const seen = seenIn(settle?.state);
    return {
      outcome,
      // false: the pass was skipped and what the session knew still holds.
      overlaysClear: unchanged ? false : clearAt(outcome, settle?.state),
      ...(seen ? { seen } : {}),
      ...(settle
        ? {
            settle: {
              reason: settle.reason,
              ms: Date.now() - settled,
              ...(settle.redirects.length ? { redirects: settle.redirects } : {}),
            },
          }
        : {}),
      ...(title ? { title } : {}),
    };
  }
}

/** At open, how long to wait for a download the page started as it loaded (later ones come with an act). */
const OPEN_DOWNLOADS_MS = 3000;

/** A close answers within the api's wait (10 s): the save as it closes gets this long. */
const CLOSE_SAVE_MS = 6_000;
/** ...and the recording's last part this long. */
const RECORDING_CLOSE_MS = 3_000;

/** The most a result waits for a tab its page asked to open (see SessionTabs.opened). */
const TABS_WAIT_MS = 3000;

/** What a run of actions may do to a session's tabs, dialogs and profile. */
function actSession(s: LiveSession, saveProfile: ActSession["saveProfile"]): ActSession {
  return {
    saveProfile,
    activePage: () => s.tabs.active,
    activeTab: () => s.tabs.activeId,
    openTabs: () => s.tabs.ids(),
    actionStarted: (index) => {
      s.dialogs.during = index;
      s.downloads.during = index;
    },
    switchTab: (id, deadline) => s.tabs.switchTo(id, deadline),
    closeTab: (id, deadline) => s.tabs.close(id, deadline),
    answerNextDialog: (a) => s.dialogs.answerNext(a),
  };
}

/**
 * The refs of the controls map as the result shows them: another tab's than the first carry its id (t2e5),
 * so a ref names its tab and one from another tab is refused rather than found on the wrong page.
 */
function tabRefs(outcome: FormatOutcome, tab: string): void {
  const controls = outcome.data.controls as Control[] | undefined;
  if (tab === "t1" || !controls) return;
  outcome.data.controls = controls.map((c) => ({ ...c, ref: shownRef(tab, c.ref) }));
}

/** The page after an act: its formats, how the wait for it ended, and its title when read already. */
interface ActPage {
  outcome: FormatOutcome;
  settle?: { reason: SettleReason; ms: number; redirects?: string[] };
  title?: Promise<string>;
  /** What the page's settle state said when last read, for the next act. */
  seen?: Seen;
}

type ActionsRun = Awaited<ReturnType<typeof runActions<QuietRead>>>;

/** What an act answers with after its actions, and what the session learns from it. */
interface Finished {
  outcome: FormatOutcome;
  facts: Awaited<ReturnType<typeof pageFacts>>;
  tabs?: TabInfo[];
  downloads?: DownloadSeen[];
  changes?: PageChanges;
  seen?: Seen;
  shown?: PageState;
  /** false: what the session knew of overlays still holds. */
  overlaysClear: OverlaysClear | undefined | false;
}

/** The answer of an act whose page did not render in time: each format asked for is named as a timeout. */
function unrendered(s: LiveSession, formats: readonly Format[]): Finished {
  const error = {
    code: "timeout",
    message: `the page did not settle and render within ${ACT_FINISH_MS} ms after the actions (the browser is busy or the page is frozen); the actions' outcomes stand, act again to read the page`,
  };
  return {
    outcome: { data: {}, errors: Object.fromEntries(formats.map((f) => [f, error])), timings: {} },
    facts: { url: s.tabs.active.url(), title: undefined },
    overlaysClear: false,
  };
}

/** The promise's value, or undefined once the deadline passed first (the work goes on unobserved). */
async function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((r) => {
    timer = setTimeout(() => r(undefined), Math.max(0, deadline - Date.now()));
  });
  work.catch(() => {});
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The page as a quiet read found it, settled when the last action ended. */
function quietOutcome(q: QuietRead): ActPage {
  return {
    outcome: {
      data: { controls: q.controls },
      errors: {},
      controlsText: q.text,
      timings: {},
      ...(q.truncated ? { controlsTruncated: true } : {}),
    },
    settle: { reason: "quiet", ms: 0 },
    title: Promise.resolve(q.title),
    ...(seenIn(q.state) ? { seen: seenIn(q.state) } : {}),
  };
}

interface OverlaysClear {
  origin: number;
  at: number;
}

/**
 * An overlay pass found nothing on this document at page time `at` (read just before it): until
 * anything on the page changes (style included: a banner may appear by its style alone), a new pass
 * would find nothing again, so it is skipped.
 */
function overlaysStillClear(clear: OverlaysClear | undefined, state: SettledState | undefined): boolean {
  if (!clear || state?.origin === undefined || state.lastChange === undefined) return false;
  return state.origin === clear.origin && state.lastChange < clear.at;
}

/** After a render: when the page was found free of overlays, if its overlay pass found none. */
function clearAt(outcome: FormatOutcome, state: SettledState | undefined): OverlaysClear | undefined {
  const o = outcome.overlays;
  if (!o || o.dismissed.length || o.hidden || state?.origin === undefined) return undefined;
  return { origin: state.origin, at: state.now };
}

/** The page state a result showed, when it carried a controls map. */
function stateShown(outcome: FormatOutcome): PageState | undefined {
  const controls = outcome.data.controls as Control[] | undefined;
  return controls ? { controls, text: outcome.controlsText ?? [] } : undefined;
}

/**
 * Read an act message against its schema. One that is not JSON or not an act message is refused with a
 * 500 internal reply naming the fields at fault; the session goes on.
 */
export function readActMessage(
  data: Uint8Array,
):
  | { ok: true; value: SessionActMessage }
  | { ok: false; reason: "not_json" | "malformed"; reply: SessionActReply } {
  const refuse = (reason: "not_json" | "malformed", problem: string) => ({
    ok: false as const,
    reason,
    reply: {
      ok: false as const,
      error: { code: "internal", message: `the browser worker refused a ${problem}`, status: 500 },
    },
  });
  let value: unknown;
  try {
    value = decodeJson<unknown>(data);
  } catch (err) {
    return refuse("not_json", `act message that is not JSON: ${(err as Error).message}`);
  }
  const parsed = sessionActMessage.safeParse(value);
  if (!parsed.success) return refuse("malformed", `malformed act message: ${describeIssues(parsed.error)}`);
  return { ok: true, value: parsed.data };
}
