import type { Action } from "@browserfleet/contracts";

/** An action as the live view's log shows it. */
export interface ViewedAction {
  action: string;
  target?: string;
  detail?: string;
}

/**
 * What a viewer is told of an action: its name, what it acted on, and a short detail. Typed text and
 * uploaded files are told only by their size: a live view URL may be handed to a person, and what an agent
 * types is often a password or a token.
 */
export function describeForViewer(a: Action): ViewedAction {
  const [name, value] = Object.entries(a)[0] as [string, unknown];
  const v = (value && typeof value === "object" ? value : {}) as Record<string, unknown>;
  const target = typeof v.ref === "string" ? v.ref : undefined;
  const out: ViewedAction = { action: name, ...(target ? { target } : {}) };
  if ("type" in a) out.detail = `${a.type.text.length} characters${a.type.submit ? ", then submit" : ""}`;
  else if ("press" in a) out.detail = a.press;
  else if ("navigate" in a) out.detail = a.navigate.url;
  else if ("select" in a) out.detail = `${a.select.values.length} option(s)`;
  else if ("scroll" in a) out.detail = `${a.scroll.direction} ${a.scroll.amount}px`;
  else if ("upload" in a) out.detail = `${a.upload.files.length} file(s)`;
  return out;
}
