import { type Action, TAB_ID, type TabInfo } from "@browserfleet/contracts";
import type { BrowserContext, Page } from "playwright-core";
import { keepNetworkEvents } from "../page/network-events.ts";
import { ActionError } from "./action-errors.ts";

/**
 * A session's tabs: every page of its browser context, the first (t1) and those its pages open (a link
 * with target=_blank, window.open, a popup), each with an id never reused. Actions and formats are of the
 * active tab, which changes only by a tab action or when the active tab closes. The context's init
 * scripts and block rules and the browser's guard proxy apply to every page of the context, so a new tab
 * is guarded and routed as the first one is.
 */
export class SessionTabs {
  readonly #tabs: Tab[] = [];
  /** Tabs in the order they were last made active, most recent last. */
  readonly #history: Tab[] = [];
  #active: Tab | undefined;
  /** The page of the last tab that closed, for a session whose every tab is gone (it is then lost). */
  #lastPage: Page | undefined;
  #next = 1;
  #blocked: string[] = [];
  /** When each window a page asked to open (CDP Page.windowOpen) was asked for, until its page arrives. */
  #pending: number[] = [];
  #arrived: (() => void)[] = [];

  constructor(
    context: BrowserContext,
    private readonly max: number,
    /** Called when the session's last tab is gone or crashed: the session cannot go on. */
    private readonly onLost: () => void,
  ) {
    context.on("page", (page) => this.#add(page));
  }

  /** The active tab's page (a closed page when every tab is gone). */
  get active(): Page {
    const page = this.#active?.page ?? this.#lastPage;
    if (!page) throw new Error("the session has no page yet");
    return page;
  }

  get activeId(): string {
    return this.#active?.id ?? "t1";
  }

  /** The ids of the open tabs. */
  ids(): string[] {
    return this.#tabs.map((t) => t.id);
  }

  idOf(page: Page | null): string | undefined {
    return this.#tabs.find((t) => t.page === page)?.id;
  }

  #add(page: Page): void {
    this.#pending.shift();
    for (const wake of this.#arrived.splice(0)) wake();
    if (this.#tabs.length >= this.max) {
      if (this.#blocked.length < this.max) this.#blocked.push(page.url());
      void page.close().catch(() => {});
      return;
    }
    const tab: Tab = { id: `t${this.#next++}`, page, new: this.#tabs.length > 0 };
    this.#tabs.push(tab);
    keepNetworkEvents(page);
    void this.#watchOpens(page);
    if (!this.#active) this.#activate(tab);
    void page
      .opener()
      .then((opener) => {
        const by = this.#tabs.find((t) => t.page === opener);
        if (by) tab.openedBy = by.id;
      })
      .catch(() => {});
    page.on("close", () => this.#remove(tab));
    page.on("crash", () => {
      if (this.#tabs.length <= 1) this.onLost();
      else void page.close().catch(() => {});
    });
  }

  /**
   * Playwright tells of a new page only once it has set it up, a while after the page that opened it asked
   * for it; Chromium tells at once (Page.windowOpen, for window.open, a target=_blank link, a form), so a
   * tab asked for is waited for before the tabs are listed or the newest is switched to.
   */
  async #watchOpens(page: Page): Promise<void> {
    try {
      const cdp = await page.context().newCDPSession(page);
      cdp.on("Page.windowOpen", () => this.#pending.push(Date.now()));
      await cdp.send("Page.enable");
    } catch {
      // The page closed meanwhile, or no CDP: its tabs are listed when Playwright tells of them.
    }
  }

  /** Wait (at most until `deadline`) for the pages asked for in the last moments to arrive. */
  async opened(deadline: number): Promise<void> {
    for (;;) {
      const now = Date.now();
      this.#pending = this.#pending.filter((at) => now - at < PAGE_ARRIVAL_MS);
      if (!this.#pending.length || now >= deadline) return;
      const oldest = this.#pending[0]!;
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((r) => {
        this.#arrived.push(r);
        timer = setTimeout(r, Math.max(1, Math.min(deadline, oldest + PAGE_ARRIVAL_MS) - now));
      });
      clearTimeout(timer);
    }
  }

  #activate(tab: Tab): void {
    this.#active = tab;
    const at = this.#history.indexOf(tab);
    if (at >= 0) this.#history.splice(at, 1);
    this.#history.push(tab);
  }

  #remove(tab: Tab): void {
    const at = this.#tabs.indexOf(tab);
    if (at < 0) return;
    this.#tabs.splice(at, 1);
    const h = this.#history.indexOf(tab);
    if (h >= 0) this.#history.splice(h, 1);
    this.#lastPage = tab.page;
    if (this.#active === tab) {
      const next = nextActive(
        tab.openedBy,
        this.#tabs.map((t) => t.id),
        this.#history.map((t) => t.id),
      );
      this.#active = this.#tabs.find((t) => t.id === next);
      if (this.#active) void this.#active.page.bringToFront().catch(() => {});
    }
    if (this.#tabs.length === 0) this.onLost();
  }

  #find(id: string): Tab {
    const tab = id === "newest" ? this.#tabs.at(-1) : this.#tabs.find((t) => t.id === id);
    if (!tab)
      throw new ActionError(
        "no_such_tab",
        `there is no open tab ${id}; the open tabs are ${this.ids().join(", ")} (see tabs in the result)`,
      );
    return tab;
  }

  /** Make a tab active and bring it to the front (a tab in the background gets no animation frames). */
  async switchTo(id: string, deadline: number): Promise<void> {
    if (id === "newest" || !this.ids().includes(id)) await this.opened(deadline);
    const tab = this.#find(id);
    this.#activate(tab);
    await tab.page.bringToFront();
  }

  /** Close a tab, without asking its page (no beforeunload); the last one is refused. */
  async close(id: string, deadline: number): Promise<void> {
    if (id === "newest" || !this.ids().includes(id)) await this.opened(deadline);
    const tab = this.#find(id);
    if (this.#tabs.length === 1)
      throw new ActionError(
        "last_tab",
        `${tab.id} is the session's only tab; close the session instead (DELETE /web/v1/session/{id})`,
      );
    await tab.page.close();
    this.#remove(tab);
  }

  /**
   * The open tabs as a result shows them; each is marked new in the first result that lists it. A title
   * that does not come (a page busy in a script) is left empty rather than waited for.
   */
  async list(): Promise<TabInfo[]> {
    return Promise.all(
      this.#tabs.map(async (t) => {
        const title = await boundedTitle(t.page);
        const info: TabInfo = {
          id: t.id,
          url: t.page.url(),
          title,
          active: t === this.#active,
          ...(t.new ? { new: true } : {}),
          ...(t.openedBy ? { openedBy: t.openedBy } : {}),
        };
        t.new = false;
        return info;
      }),
    );
  }

  /** URLs of the tabs refused since the last call (see MAX_TABS). */
  takeBlocked(): string[] {
    const b = this.#blocked;
    this.#blocked = [];
    return b;
  }
}

interface Tab {
  id: string;
  page: Page;
  /** Not yet listed in a result. */
  new: boolean;
  openedBy?: string;
}

const TITLE_WAIT_MS = 1000;
/** How long a page asked for is waited for; one that never comes (a window.open into a named window that exists) is forgotten. */
const PAGE_ARRIVAL_MS = 5000;

async function boundedTitle(page: Page): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const title = page.title().catch(() => "");
  try {
    return await Promise.race([
      title,
      new Promise<string>((r) => {
        timer = setTimeout(() => r(""), TITLE_WAIT_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The tab made active when the active one closes: the tab that opened it if still open, else the one
 * active most recently before it, else the newest; undefined when none is left.
 */
export function nextActive(
  openedBy: string | undefined,
  open: string[],
  history: string[],
): string | undefined {
  if (openedBy && open.includes(openedBy)) return openedBy;
  return history.findLast((id) => open.includes(id)) ?? open.at(-1);
}

/** A ref of a controls map as the result shows it: t1's as the page made it, another tab's with its id first. */
export function shownRef(tab: string, ref: string): string {
  return tab === "t1" ? ref : `${tab}${ref}`;
}

const TAB_REF = /^(t\d+)?((?:f\d+)?e\d+)$/;

/**
 * The ref as the active tab's page knows it, or an error naming the tab it belongs to. A string that is not
 * a ref (a CSS selector) is returned as it is.
 */
export function localRef(raw: string, active: string, open: readonly string[]): string {
  const m = TAB_REF.exec(raw);
  if (!m) return raw;
  const tab = m[1] ?? "t1";
  if (m[1] && !TAB_ID.test(m[1])) return raw;
  if (tab === active) return m[2]!;
  const where = open.includes(tab) ? `tab ${tab}` : `tab ${tab}, which is closed`;
  throw new ActionError(
    "wrong_tab",
    `ref ${raw} is from ${where}, not from the active tab ${active}; ${
      open.includes(tab) ? `switch to it first with {"tab":{"id":"${tab}"}}, or ` : ""
    }take a controls map of ${active} and use its refs`,
  );
}

/** The action with its ref (or a wait's selector that is a ref) as the active tab's page knows it. */
export function withLocalRef(a: Action, active: string, open: readonly string[]): Action {
  const [kind, args] = Object.entries(a)[0] as [string, unknown];
  if (!args || typeof args !== "object") return a;
  const key = "ref" in args ? "ref" : kind === "wait" && "selector" in args ? "selector" : undefined;
  const raw = key ? (args as Record<string, unknown>)[key] : undefined;
  if (typeof raw !== "string") return a;
  const local = localRef(raw, active, open);
  return local === raw ? a : ({ [kind]: { ...args, [key!]: local } } as Action);
}
