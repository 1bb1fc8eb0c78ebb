import { classOf } from "./dom.ts";

const LANGUAGE_CLASS = /(?:^|\s)lang(?:uage)?-([\w#+.-]+)/i;
// GitHub: <div class="highlight highlight-source-js"><pre>…
const HIGHLIGHT_CLASS = /(?:^|\s)highlight-(?:source|text)-([a-z0-9]+)/i;

function languageOf(el: Element | null | undefined): string {
  if (!el) return "";
  const cls = classOf(el);
  const match = LANGUAGE_CLASS.exec(cls) ?? HIGHLIGHT_CLASS.exec(cls);
  if (match?.[1]) return match[1];
  return el.getAttribute("data-lang") ?? el.getAttribute("data-language") ?? "";
}

/** Language of a <pre> block, from its <code> child, itself, or a highlighter wrapper. */
export function codeLanguage(pre: Element): string {
  const code = pre.firstElementChild?.nodeName === "CODE" ? pre.firstElementChild : null;
  const lang = languageOf(code) || languageOf(pre) || languageOf(pre.parentElement);
  return /^[\w#+.-]+$/.test(lang) ? lang : "";
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

export function fencedBlock(code: string, language: string): string {
  const body = code.replace(/^(?:[ \t]*\r?\n)+/, "").replace(/\s+$/, "");
  const fence = "`".repeat(Math.max(3, longestBacktickRun(body) + 1));
  return `\n\n${fence}${language}\n${body}\n${fence}\n\n`;
}
