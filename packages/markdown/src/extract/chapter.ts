/**
 * A documentation chapter's opening page: its title, its table of contents and a short introduction,
 * all in the chapter's element. The contents list is most of what the page offers (each section is a
 * page of its own), though as a list of links it weighs as navigation; beside a chapter's title it is not.
 * Tests: test/main-content.test.ts ("keeps a documentation chapter's title and contents on its opening page...").
 */
import { FURNITURE_TAGS, namesOf } from "./patterns.ts";
import { type Tallies, tallyOf } from "./score.ts";

/** A chapter's own table of contents, by the names documentation generators give it. */
const TOC_NAME =
  /(?:^|[\s_-])(?:toc|toctree(?:-wrapper)?|table-?of-?contents|chapter-?contents)(?:$|[\s_-])/i;
/** A chapter's opening page says little itself: an introduction of a paragraph or two. */
const CHAPTER_INTRO_CHARS = 1000;
/** Link text the chapter may hold outside its contents, against its prose. */
const CHAPTER_LINK_SHARE = 0.25;
/** How far above the introduction the chapter's element may sit. */
const CHAPTER_LEVELS = 3;

/** Fewest entries of a chapter's contents. */
const MIN_TOC_LINKS = 3;

/** Links mostly to other pages: an "on this page" list, whose links jump within the page, is navigation. */
function listsPages(toc: Element): boolean {
  const links = toc.querySelectorAll("a[href]");
  let elsewhere = 0;
  for (const a of links) if (!a.getAttribute("href")?.startsWith("#")) elsewhere++;
  return links.length >= MIN_TOC_LINKS && elsewhere >= 0.5 * links.length;
}

/** The chapter around the picked introduction, and its contents list; undefined when it is no chapter's opening. */
export function chapterOf(
  container: Element,
  body: Element,
  tallies: Tallies,
): { root: Element; toc: Element } | undefined {
  const intro = tallyOf(tallies, container).good;
  if (intro >= CHAPTER_INTRO_CHARS) return undefined;
  let up: Element | null = container;
  for (let level = 0; up && up !== body && level <= CHAPTER_LEVELS; level++, up = up.parentElement) {
    let toc: Element | undefined;
    let good = up === container ? 0 : intro;
    let bad = 0;
    for (let part = up.firstElementChild; part; part = part.nextElementSibling) {
      if (up !== container && part.contains(container)) continue;
      if (!toc && TOC_NAME.test(namesOf(part)) && !FURNITURE_TAGS.has(part.nodeName) && listsPages(part)) {
        toc = part;
        continue;
      }
      const t = tallyOf(tallies, part);
      good += t.good;
      bad += t.bad;
    }
    // Besides its contents the chapter holds prose, its title and a few links within sentences.
    if (bad > CHAPTER_LINK_SHARE * good) return undefined;
    const title = up.querySelector("h1, h2");
    if (toc && title && !toc.contains(title)) return { root: up, toc };
  }
  return undefined;
}
