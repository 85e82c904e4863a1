// The full-width style: `【n】` and `【n†...】` (after the dagger any text without a full-width
// bracket, `【1†source】`). `【3:0†source】`, an index pair of another tool's numbering, names
// nothing.
import { MAX_MARKER_LENGTH, number } from "./numbers.js";

const NUMBERED = /^\u3010([0-9]{1,9})(?:\u2020[^\u3010\u3011]*)?\u3011$/;

/** @type {import("../index.js").MarkerStyle} */
export const fullwidth = {
  name: "fullwidth",
  opener: "\u3010",
  pattern: new RegExp(`\u3010[^\u3010\u3011\\n]{1,${MAX_MARKER_LENGTH - 2}}\u3011`, "gu"),
  items(marker) {
    const match = NUMBERED.exec(marker);
    const found = match ? number(match[1]) : null;
    return found === null ? null : [found];
  },
};
