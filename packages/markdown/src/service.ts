import { strikethrough, tables, taskListItems } from "@joplin/turndown-plugin-gfm";
import TurndownService from "turndown";
import { addContentRules } from "./rules.ts";
import { addTableRules } from "./table-rules.ts";

export function createService(): TurndownService {
  const service = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    emDelimiter: "_",
    strongDelimiter: "**",
    linkStyle: "inlined",
    hr: "---",
    // Hard breaks would need trailing spaces, which the output tidy-up strips.
    br: "",
  });
  service.use([strikethrough, tables, taskListItems]);
  // Rules added later are consulted first, so these override the ones above.
  addContentRules(service);
  addTableRules(service);
  indexRulesByTag(service);
  // turndown runs thirteen replacements over every text node; most have nothing any of them changes.
  const escapeAll = service.escape.bind(service);
  service.escape = (text: string) => (MAY_NEED_ESCAPE.test(text) ? escapeAll(text) : text);
  return service;
}

/** Anything turndown's escapes act on: these characters anywhere, or a block marker at the start. */
const MAY_NEED_ESCAPE = /[\\*`[\]_]|^(?:[-+=#>~]|\d+\. )/;

type Filter = string | string[] | ((this: Rule, node: HTMLElement, options: unknown) => boolean);
interface Rule {
  filter: Filter;
}
/** turndown's rule set (lib/turndown: Rules), which its typings do not describe. */
interface RuleSet {
  options: unknown;
  array: Rule[];
  _keep: Rule[];
  _remove: Rule[];
  blankRule: Rule;
  defaultRule: Rule;
  forNode(node: HTMLElement & { isBlank?: boolean }): Rule;
}

/**
 * turndown finds a node's rule by trying every rule in turn, lower-casing the node's name again for each
 * rule that names tags: most of its time on a large page. The same rule is found here from the rules that
 * can apply to the tag (those naming it, and those that decide by function), listed once per tag in
 * turndown's order.
 */
function indexRulesByTag(service: TurndownService): void {
  const rules = (service as unknown as { rules?: RuleSet }).rules;
  if (!rules || !Array.isArray(rules.array) || !Array.isArray(rules._keep) || !Array.isArray(rules._remove))
    return;
  const byTag = new Map<string, Rule[]>();
  let size = -1;
  const applies = (rule: Rule, tag: string) =>
    typeof rule.filter === "function" ||
    (typeof rule.filter === "string" ? rule.filter === tag : rule.filter.includes(tag));
  rules.forNode = function forNode(node) {
    if (node.isBlank) return this.blankRule;
    // Rules added since (turndown's addRule, keep, remove) start the index again.
    const now = this.array.length + this._keep.length + this._remove.length;
    // Custom elements' names have no end: the index is bounded too.
    if (now !== size || byTag.size > 2000) {
      byTag.clear();
      size = now;
    }
    const tag = node.nodeName.toLowerCase();
    let candidates = byTag.get(tag);
    if (!candidates) {
      candidates = [...this.array, ...this._keep, ...this._remove].filter((rule) => applies(rule, tag));
      byTag.set(tag, candidates);
    }
    for (const rule of candidates) {
      if (typeof rule.filter !== "function" || rule.filter.call(rule, node, this.options)) return rule;
    }
    return this.defaultRule;
  };
}

/**
 * Converts `root` in place. Turndown deep-clones any node it is given; the
 * document is private to this conversion, so hand it an object whose
 * cloneNode returns the root itself. That saves a full copy of the page and
 * keeps what the pre-passes attached to the nodes (see tables.ts, clean.ts).
 */
export function convertInPlace(service: TurndownService, root: HTMLElement): string {
  const input = { nodeType: 1, cloneNode: () => root };
  return service.turndown(input as unknown as HTMLElement);
}
