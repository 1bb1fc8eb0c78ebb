import { z } from "zod";
import { cssSelector, FORMATS, format, httpUrl, maxTokens, WAIT_UNTIL } from "./common.ts";
import { liveViewMode } from "./live-view.ts";
import { profileLoaded, profileName, profileSaved, profileUse } from "./profiles.ts";
import { recordField } from "./recordings.ts";
import { checkRenderRules, formatError, pageMetadata, rawHtml, renderFields, URL_OR_HTML } from "./scrape.ts";
import { LINE, TEXT, text } from "./text.ts";
import { webhookSpec } from "./webhook-spec.ts";

export const sessionRequest = z
  .strictObject({
    url: httpUrl.optional(),
    html: rawHtml().optional(),
    ...renderFields,
    formats: z.array(format).min(1).max(FORMATS.length).meta({ uniqueItems: true }).default(["controls"]),
    profile: profileUse.optional(),
    liveView: liveViewMode,
    record: recordField,
    webhook: webhookSpec
      .optional()
      .describe(
        "Where to POST session.closed when the session ends (closed, expired or lost), signed like a job's events; needs an API key",
      ),
  })
  .superRefine((v, ctx) => {
    if ((v.url === undefined) === (v.html === undefined)) {
      ctx.addIssue({ code: "custom", path: ["url"], message: "give exactly one of url or html" });
    }
    checkRenderRules(v, ctx);
  })
  .meta(URL_OR_HTML);
export type SessionRequest = z.infer<typeof sessionRequest>;

/** A control: its ref from the controls format, or a CSS selector. */
const target = cssSelector();

/** A session's id as the api gave it out: one line. */
export const sessionId = () => text(LINE).min(1).max(200);

/** The most tabs a session holds open at once; a tab a page opens past it is closed at once (see blockedTabs). */
export const MAX_TABS = 8;
/** The most characters of a dialog's message or default value reported; longer ones are cut with "…". */
export const MAX_DIALOG_TEXT = 1000;
/** Dialogs listed in one result; any more are answered and counted in dialogsOmitted. */
export const MAX_DIALOGS_LISTED = 20;
/** The largest file a session keeps from a download; a larger one is listed with download_too_large. */
export const MAX_DOWNLOAD_BYTES = 4 * 1024 * 1024;
/** Downloads listed in one result, and the most of their bytes one result carries (the rest say so). */
export const MAX_DOWNLOADS_LISTED = 10;
export const MAX_DOWNLOADS_RESULT_BYTES = 6 * 1024 * 1024;
/** The most bytes of files one act may upload, all files together (decoded). */
export const MAX_UPLOAD_BYTES = 4 * 1024 * 1024;
/** A tab's id in a session: t1 for the first, then t2, t3, ... in the order they opened, never reused. */
export const TAB_ID = /^t[1-9]\d{0,5}$/;

export const action = z.union([
  z.strictObject({
    type: z.strictObject({ ref: target, text: text(TEXT).max(100_000), submit: z.boolean().optional() }),
  }),
  z.strictObject({
    press: text(LINE).min(1).max(100).describe("Playwright key name, e.g. Enter, Control+A"),
  }),
  z.strictObject({
    click: z.strictObject({
      ref: target,
      button: z.enum(["left", "right", "middle"]).optional(),
      clickCount: z.int().min(1).max(3).optional(),
    }),
  }),
  z.strictObject({
    select: z.strictObject({ ref: target, values: z.array(text(TEXT).max(1000)).min(1).max(100) }),
  }),
  z.strictObject({
    wait: z.union([
      z.strictObject({ ms: z.int().min(0).max(30_000) }),
      z.strictObject({
        selector: cssSelector(),
        timeout: z.int().min(0).max(30_000).optional(),
      }),
      z.strictObject({ text: text(TEXT).min(1).max(1000), timeout: z.int().min(0).max(30_000).optional() }),
      z.strictObject({ until: z.enum(WAIT_UNTIL), timeout: z.int().min(0).max(30_000).optional() }),
    ]),
  }),
  z.strictObject({ hover: z.strictObject({ ref: target }) }),
  z.strictObject({
    scroll: z.strictObject({
      ref: target.optional(),
      direction: z.enum(["up", "down", "left", "right"]).default("down"),
      amount: z.int().min(1).max(100_000).default(600).describe("Pixels"),
    }),
  }),
  z.strictObject({ check: z.strictObject({ ref: target }) }),
  z.strictObject({ uncheck: z.strictObject({ ref: target }) }),
  z.strictObject({ navigate: z.strictObject({ url: httpUrl }) }),
  z.strictObject({ back: z.strictObject({}) }),
  z.strictObject({
    dialog: z
      .strictObject({
        accept: z.boolean().describe("true: accept (OK) the dialog; false: dismiss it (Cancel)"),
        promptText: text(TEXT)
          .max(10_000)
          .optional()
          .describe("What a prompt() accepted this way answers; default its own default value"),
      })
      .describe(
        "How the next dialog (alert, confirm, prompt, beforeunload) that opens in this act is answered, instead of its default (alert accepted, confirm dismissed, prompt dismissed, beforeunload accepted). Give it before the action that opens the dialog; several in a row answer that many dialogs in turn. An answer no dialog used ends with the act",
      ),
  }),
  z.strictObject({
    tab: z
      .strictObject({
        id: z
          .union([z.string().regex(TAB_ID), z.literal("newest")])
          .describe(
            "A tab's id from the result's tabs (t1 is the tab the session opened on), or newest: the tab opened most recently",
          ),
        close: z
          .boolean()
          .optional()
          .describe(
            "true: close that tab instead of switching to it. Closing the active tab makes active the tab that opened it if it is still open, else the tab active before it. The last tab cannot be closed: close the session instead",
          ),
      })
      .describe(
        "Switch to another tab of the session (a link with target=_blank, window.open or a popup opens one; the result's tabs lists them), or close one. The following actions, and the formats of the result, are of the active tab; refs from a tab's controls map work only while that tab is active",
      ),
  }),
  z.strictObject({
    upload: z
      .strictObject({
        ref: target,
        files: z
          .array(
            z.union([
              z.strictObject({
                name: text(LINE).min(1).max(255).describe("The file's name as the page sees it"),
                type: text(LINE)
                  .max(255)
                  .optional()
                  .describe("Its media type; default from the name's extension"),
                data: z
                  .string()
                  .regex(/^[A-Za-z0-9+/]*={0,2}$/, "data is the file's bytes in base64")
                  .max(Math.ceil((MAX_UPLOAD_BYTES * 4) / 3) + 4)
                  .describe("The bytes, base64"),
              }),
              z.strictObject({
                url: httpUrl.describe(
                  "A file link this api gave out (a download's or a screenshot's with binaryAs url, under /web/v1/artifacts/), still valid",
                ),
                name: text(LINE).min(1).max(255).optional().describe("Default: the link's file name"),
              }),
            ]),
          )
          .min(1)
          .max(10),
      })
      .describe(
        `Set files on a file input (<input type=file>, by ref or selector), as a person choosing them would; the page's change handlers run. Files inline as base64, or by a file link of this api. All files of one act together at most ${MAX_UPLOAD_BYTES} bytes`,
      ),
  }),
  z.strictObject({
    saveProfile: z
      .strictObject({
        name: profileName().optional().describe("Default: the profile the session opened with"),
      })
      .describe(
        "Save the session's browser state (cookies, localStorage, IndexedDB) to a profile of this account now, for example right after logging in; the result's profile says what was saved. Needs a session opened with an API key",
      ),
  }),
]);
export type Action = z.infer<typeof action>;
/** The action forms (the one key of each action object), in the contract's order. */
export const ACTION_FORMS = action.options.map((o) => Object.keys(o.shape)[0]!);

export const actRequest = z
  .strictObject({
    sessionId: sessionId(),
    actions: z.array(action).min(1).max(25),
    formats: z.array(format).min(1).max(FORMATS.length).optional().describe("Default: the session's formats"),
    maxTokens: maxTokens
      .optional()
      .describe(
        "As in scrape, for the formats of the state after acting, except that the largest format (the controls map or the page text of a busy page) is the one cut and the smaller ones stay whole. The session's maxTokens does not carry over: give it on each act that needs it",
      ),
    binaryAs: z
      .enum(["base64", "url"])
      .optional()
      .describe("As in scrape, for a screenshot or PDF of the state after acting. Default base64"),
    changesOnly: z
      .boolean()
      .optional()
      .describe(
        "true: instead of the whole controls map, answer with what changed since this session's previous controls map (the one session open or the last act returned): `changes` lists the controls added, removed and changed, and the lines of page text added and removed. Refs stay valid across results, so an agent can keep its map and apply the changes; far fewer tokens than a full map. Other formats asked for still come whole. Default false",
      ),
  })
  .describe(
    "Run actions in order on an open session, then return the page as it stands after them: the formats asked for, or with changesOnly: true only what changed since the previous result (controls added, removed and changed; text added and removed).",
  );
export type ActRequest = z.infer<typeof actRequest>;

export const actionOutcome = z.object({
  index: z.int().describe("Position in the request's actions, from 0"),
  action: z.string().describe("The action's form: type, press, click, ..."),
  status: z.enum(["ok", "failed", "skipped"]).describe("skipped: not run because an earlier action failed"),
  error: formatError.optional().describe("Why it failed, and what to do next"),
  ms: z.int().optional(),
});
export type ActionOutcome = z.infer<typeof actionOutcome>;

export const tabInfo = z.object({
  id: z.string().describe("Use it in a tab action: {tab:{id}}"),
  url: z.string(),
  title: z.string(),
  active: z.boolean().describe("The tab actions and formats are of; exactly one is"),
  new: z.boolean().optional().describe("true: opened since the previous result"),
  openedBy: z.string().optional().describe("The tab whose page opened this one"),
});
export type TabInfo = z.infer<typeof tabInfo>;

export const DIALOG_KINDS = ["alert", "confirm", "prompt", "beforeunload"] as const;

export const dialogSeen = z.object({
  kind: z.enum(DIALOG_KINDS),
  message: z.string().describe(`Its text, cut to ${MAX_DIALOG_TEXT} characters`),
  defaultValue: z.string().optional().describe("A prompt's default value"),
  answer: z.enum(["accepted", "dismissed"]),
  promptText: z.string().optional().describe("What an accepted prompt answered"),
  by: z
    .enum(["default", "action"])
    .describe("default: the documented default answer; action: a dialog action's answer"),
  tab: z.string().describe("The tab it opened in"),
  during: z
    .int()
    .optional()
    .describe(
      "Index of the action during which it opened; absent when it opened between calls or while the page was read",
    ),
});
export type DialogSeen = z.infer<typeof dialogSeen>;

export const downloadSeen = z.object({
  name: z.string().describe("The file name the site gave it"),
  url: z.string().describe("Where it was downloaded from"),
  type: z.string().describe("Its media type, told from its bytes and name"),
  size: z.int().optional().describe("Bytes; absent when it did not finish"),
  tab: z.string().describe("The tab whose page started it"),
  during: z.int().optional().describe("The index of the action it started during"),
  data: z
    .string()
    .optional()
    .describe(
      "The file: base64, or with binaryAs url a link that serves it without a key until metadata.filesExpireAt",
    ),
  markdown: z
    .string()
    .optional()
    .describe(
      "A document (pdf, docx, xlsx, csv, odt, ods) converted, when the act's formats include markdown",
    ),
  error: formatError
    .optional()
    .describe(
      `Why the file is not here: download_too_large (past ${MAX_DOWNLOAD_BYTES} bytes), downloads_over_budget (this result already carries ${MAX_DOWNLOADS_RESULT_BYTES} bytes of files), download_failed, or timeout (not finished by the end of the act); a document that did not convert says so here too, its data still given`,
    ),
});
export type DownloadSeen = z.infer<typeof downloadSeen>;
const downloadsField = z
  .array(downloadSeen)
  .max(MAX_DOWNLOADS_LISTED)
  .optional()
  .describe(
    `Files the session's pages downloaded since the previous result (a click on a download link, a navigation that answers with an attachment), in order: the first ${MAX_DOWNLOADS_LISTED}. The download's request went through the same SSRF guard as any page request`,
  );

const dialogsField = z
  .array(dialogSeen)
  .optional()
  .describe(
    "Every dialog (alert, confirm, prompt, beforeunload) that opened since the previous result, in order, and how it was answered; absent when none did. Defaults: alert accepted, confirm dismissed, prompt dismissed, beforeunload accepted (the navigation goes on); a dialog action answers otherwise. No dialog is left open",
  );
const dialogsOmittedField = z
  .int()
  .optional()
  .describe(
    `Dialogs past the ${MAX_DIALOGS_LISTED} listed under dialogs since the previous result: answered like the others, not listed; absent when none`,
  );
const tabsField = z
  .array(tabInfo)
  .describe(
    `The session's open tabs, in the order they opened. A page that opens a tab (target=_blank, window.open) does not switch to it: use {tab:{id}}. At most ${MAX_TABS} tabs are open at once`,
  );
const blockedTabsField = z
  .array(z.string())
  .optional()
  .describe(
    `URLs of tabs the page tried to open while ${MAX_TABS} were open; each was closed at once. Close a tab to make room`,
  );

export const sessionMetadata = pageMetadata
  .pick({
    url: true,
    statusCode: true,
    title: true,
    formats: true,
    controlsTruncated: true,
    screenshotTruncated: true,
    mainContent: true,
    markdownDegraded: true,
    pageType: true,
    settle: true,
    tokens: true,
    truncated: true,
    filesExpireAt: true,
    seenAs: true,
  })
  .extend({
    expiresAt: z
      .string()
      .describe("When the session closes unless used again (idle timeout, capped by the maximum lifetime)"),
    ms: z.int(),
  });

export const sessionResponse = z.object({
  success: z.boolean().describe("true when the page opened; formats that failed are under errors"),
  sessionId: z.string(),
  data: z.record(z.string(), z.unknown()).describe("One key per requested format that succeeded"),
  errors: z.record(z.string(), formatError),
  tabs: tabsField.optional(),
  dialogs: dialogsField,
  dialogsOmitted: dialogsOmittedField,
  blockedTabs: blockedTabsField,
  downloads: downloadsField,
  profile: profileLoaded.optional().describe("The profile the session opened with"),
  liveViewUrl: z
    .string()
    .optional()
    .describe(
      "A page that shows the session's current tab as it changes, its URL and title, and the actions as they run (interactive: the viewer may click and type too). A capability: whoever holds it may watch this session, and nothing else, until the session ends. Absent with liveView off",
    ),
  recordingUrl: z
    .string()
    .optional()
    .describe(
      "With record: a page that replays the session's recording (what it has so far while it runs), with its actions as steps. A capability like liveViewUrl: it opens this recording only, until the recording is deleted (RECORDING_TTL_MS after the session's longest life)",
    ),
  metadata: sessionMetadata,
});
export type SessionResponse = z.infer<typeof sessionResponse>;

/** One entry of the controls format. */
export const control = z.object({
  ref: z.string().describe("Use it as ref in act's actions"),
  role: z.string(),
  name: z.string(),
  selector: z.string().optional().describe("A CSS selector for the same element"),
  box: z
    .object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() })
    .nullable()
    .describe("Where it is on screen, in CSS pixels; null when it has no size"),
  disabled: z.boolean().optional(),
  checked: z.union([z.boolean(), z.literal("mixed")]).optional(),
  expanded: z.boolean().optional(),
  pressed: z.union([z.boolean(), z.literal("mixed")]).optional(),
  url: z.string().optional(),
  value: z.string().optional(),
  options: z.array(z.string()).optional().describe("A select's choices, for the select action"),
});
export type ControlEntry = z.infer<typeof control>;

export const pageChanges = z
  .object({
    comparedWith: z
      .enum(["previous", "nothing"])
      .describe(
        "previous: the session's previous controls map; nothing: no earlier result had one, so everything is listed as added",
      ),
    controls: z.object({
      added: z.array(control).describe("Controls that were not there before, in page order"),
      removed: z
        .array(control.pick({ ref: true, role: true, name: true }))
        .describe("Controls that are gone; their refs no longer work"),
      changed: z
        .array(control)
        .describe("Controls still there whose name, value, state, options or link changed, as they are now"),
    }),
    text: z.object({
      added: z.array(z.string()).describe("Lines of page text that are new, in page order"),
      removed: z.array(z.string()).describe("Lines of page text that are gone"),
    }),
  })
  .describe("What changed since the previous result (changesOnly: true)");
export type PageChanges = z.infer<typeof pageChanges>;

export const actResponse = z.object({
  success: z.boolean().describe("true when every action ran"),
  sessionId: z.string(),
  actions: z.array(actionOutcome),
  stoppedAt: z.int().nullable().describe("Index of the action that failed and stopped the run, or null"),
  data: z
    .record(z.string(), z.unknown())
    .describe("The requested formats of the state after acting (without controls when changesOnly is true)"),
  changes: pageChanges.optional(),
  errors: z.record(z.string(), formatError),
  tabs: tabsField.optional(),
  dialogs: dialogsField,
  dialogsOmitted: dialogsOmittedField,
  blockedTabs: blockedTabsField,
  downloads: downloadsField,
  profile: profileSaved.optional().describe("What the act's last saveProfile action saved"),
  metadata: sessionMetadata,
});
export type ActResponse = z.infer<typeof actResponse>;

export const sessionCloseResponse = z.object({
  success: z.literal(true),
  sessionId: z.string(),
  status: z.enum(["closed", "expired"]).describe("expired: it had ended by idle timeout or maximum lifetime"),
  closedAt: z.string(),
  profile: profileSaved
    .optional()
    .describe("A session opened with profile.save: what became of saving its state as it closed"),
});
