/** Pure: pick the controls an agent can act on out of Playwright's AI snapshot (JSON form). */

export const CONTROL_ROLES = new Set([
  "button",
  "link",
  "textbox",
  "searchbox",
  "combobox",
  "listbox",
  "checkbox",
  "radio",
  "switch",
  "slider",
  "spinbutton",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "tab",
  "treeitem",
  "option",
]);

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Control {
  ref: string;
  role: string;
  name: string;
  selector?: string;
  box: Box | null;
  disabled?: boolean;
  checked?: boolean | "mixed";
  expanded?: boolean;
  pressed?: boolean | "mixed";
  url?: string;
  value?: string;
  /** A select's choices (names), for the select action; capped at MAX_OPTIONS. */
  options?: string[];
}

const MAX_OPTIONS = 50;

interface SnapshotNode {
  role?: string;
  name?: string;
  text?: string;
  ref?: string;
  box?: Box;
  disabled?: boolean;
  checked?: boolean | "mixed";
  expanded?: boolean;
  pressed?: boolean | "mixed";
  url?: string;
  selected?: boolean;
  children?: Array<SnapshotNode | string>;
}

const optionsOf = (n: SnapshotNode): SnapshotNode[] =>
  (n.children ?? []).flatMap((c) =>
    typeof c === "string" ? [] : c.role === "option" ? [c] : c.role === "group" ? optionsOf(c) : [],
  );

export function controlsFromSnapshot(
  tree: unknown,
  opts: { visibleOnly: boolean; limit: number },
): { controls: Control[]; total: number } {
  const found: Control[] = [];
  const visit = (node: unknown, insideSelect: boolean) => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n, insideSelect);
      return;
    }
    if (!node || typeof node !== "object") return;
    const n = node as SnapshotNode;
    const role = n.role ?? "";
    // Options of a native select are chosen through the select action on the combobox, not one by one.
    const isControl = CONTROL_ROLES.has(role) && n.ref !== undefined && !(role === "option" && insideSelect);
    if (isControl) {
      const box = n.box && n.box.width > 0 && n.box.height > 0 ? n.box : null;
      const visible = box !== null && !n.disabled;
      if (!opts.visibleOnly || visible) {
        const c: Control = { ref: n.ref!, role, name: n.name ?? "", box };
        if (n.disabled) c.disabled = true;
        if (n.checked !== undefined) c.checked = n.checked;
        if (n.expanded !== undefined) c.expanded = n.expanded;
        if (n.pressed !== undefined) c.pressed = n.pressed;
        if (n.url !== undefined) c.url = n.url;
        // A text box's value: its `text` (an only child), or its text children.
        const text = (
          typeof n.text === "string"
            ? n.text
            : (n.children ?? []).filter((x): x is string => typeof x === "string").join(" ")
        ).trim();
        if (
          text &&
          (role === "textbox" || role === "searchbox" || role === "combobox" || role === "spinbutton")
        )
          c.value = text;
        const options = role === "combobox" || role === "listbox" ? optionsOf(n) : [];
        if (options.length > 0) {
          const chosen = options.filter((o) => o.selected).map((o) => o.name ?? "");
          if (chosen.length > 0 && c.value === undefined) c.value = chosen.join(", ");
          c.options = options.slice(0, MAX_OPTIONS).map((o) => o.name ?? "");
        }
        found.push(c);
      }
    }
    visit(n.children ?? [], insideSelect || role === "combobox");
  };
  visit(tree, false);
  return { controls: found.slice(0, opts.limit), total: found.length };
}

const MAX_TEXT_LINES = 2_000;
const MAX_LINE = 500;

/**
 * The page's text from the same snapshot, one line per text run or named element (a heading, an image),
 * in page order; what controls say is in the controls themselves and is left out. For telling what
 * changed between two states of a page.
 */
export function textFromSnapshot(tree: unknown): string[] {
  const lines: string[] = [];
  const push = (raw: string) => {
    const line = raw.replace(/\s+/g, " ").trim();
    if (line && lines.length < MAX_TEXT_LINES)
      lines.push(line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line);
  };
  const visit = (node: unknown) => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n);
      return;
    }
    if (typeof node === "string") {
      push(node);
      return;
    }
    if (!node || typeof node !== "object") return;
    const n = node as SnapshotNode;
    if (CONTROL_ROLES.has(n.role ?? "")) return;
    const children = n.children ?? [];
    if (typeof n.text === "string") push(n.text);
    else if (n.name && !children.some((c) => typeof c === "string")) push(n.name);
    visit(children);
  };
  visit(tree);
  return lines;
}
