/**
 * A thread: every post with its author, replies included, without the engine's chrome around each post
 * (post-chrome.ts) or a reply's quote of a post already shown (quoted-posts.ts).
 */
import { removePostChrome } from "../post-chrome.ts";
import { removeRepeatedQuotes } from "../quoted-posts.ts";
import { finishContent, type PageStrategy } from "./strategy.ts";

export const forum: PageStrategy = {
  type: "forum",
  itemGrid: false,
  shopControls: false,
  sections: "one",
  // A thread's replies are its content; on a Q&A page the answers are, and the comments under them are not.
  keepsComments: (hints) => !(hints?.schemaTypes.has("qapage") || /\/questions\/\d+/.test(hints?.path ?? "")),
  finish(container, _body, tallies) {
    finishContent(forum, container, tallies);
    removePostChrome(container);
    removeRepeatedQuotes(container);
    return container;
  },
};
