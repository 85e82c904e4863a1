// The footnote style: `[^n]`, inline and at the start of its definition line `[^n]: ...`
// (a definition that is a CommonMark link reference definition is a link, not a marker).
import { NUMBER } from "./numbers.js";

/** @type {import("../index.js").MarkerStyle} */
export const footnote = {
  name: "footnote",
  pattern: new RegExp(`\\[\\^(${NUMBER})\\]`, "g"),
  items: (match) => [Number(match[1])],
};
