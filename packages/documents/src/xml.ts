import { XMLParser, XMLValidator } from "fast-xml-parser";

/** One node of fast-xml-parser's ordered output: `{ tag: children, ":@": attributes }` or `{ "#text": s }`. */
export type XmlNode = Record<string, unknown>;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  maxNestedTags: 500,
});

/** Parse well-formed XML; throws on XML that is not (the parser alone would quietly accept a truncated file). */
export function parseXml(xml: string): XmlNode[] {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new Error(`${valid.err.msg} (line ${valid.err.line})`);
  return parser.parse(xml) as XmlNode[];
}

/** The element's name, or undefined for text. */
export function tagOf(node: XmlNode): string | undefined {
  for (const key of Object.keys(node)) if (key !== ":@" && key !== "#text") return key;
  return undefined;
}

export function childrenOf(node: XmlNode): XmlNode[] {
  const tag = tagOf(node);
  const kids = tag ? node[tag] : undefined;
  return Array.isArray(kids) ? (kids as XmlNode[]) : [];
}

export function attr(node: XmlNode, name: string): string | undefined {
  const attrs = node[":@"] as Record<string, unknown> | undefined;
  const v = attrs?.[name];
  return v === undefined ? undefined : String(v);
}

export function textOf(node: XmlNode): string | undefined {
  const t = node["#text"];
  return t === undefined ? undefined : String(t);
}

/** The first element named `tag` at any depth, breadth first. */
export function find(nodes: XmlNode[], tag: string): XmlNode | undefined {
  let level = nodes;
  while (level.length) {
    const hit = level.find((n) => tagOf(n) === tag);
    if (hit) return hit;
    level = level.flatMap(childrenOf);
  }
  return undefined;
}

/** All the text under the nodes, concatenated. */
export function allText(nodes: XmlNode[]): string {
  let out = "";
  for (const n of nodes) out += textOf(n) ?? allText(childrenOf(n));
  return out;
}

export const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
