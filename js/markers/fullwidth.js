// The full-width style: `【n】` and `【n†...】` (after the dagger any text without a
// full-width bracket, `【1†source】`). `【3:0†source】`, an index pair of another numbering,
// is not one.
import { MAX_MARKER_LENGTH, NUMBER } from "./numbers.js";

/** @type {import("../index.js").MarkerStyle} */
export const fullwidth = {
  name: "fullwidth",
  pattern: new RegExp(`\u3010(${NUMBER})(?:\u2020[^\u3010\u3011]{0,${MAX_MARKER_LENGTH}})?\u3011`, "gu"),
  items: (match) => [Number(match[1])],
};
