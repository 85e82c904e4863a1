// The grouped and ranged style: `[1, 2]`, `[1,2]`, `[1-3]`, `[1–3]`, `[1, 3–5]`: two items or
// more separated by commas (spaces or tabs around each), or a single range; an item is a
// number or a range.
import { NUMBER, RANGE, item } from "./numbers.js";

const ITEM = `(?:${RANGE}|${NUMBER})`;
const COMMA = /[ \t]*,[ \t]*/;

/** @type {import("../index.js").MarkerStyle} */
export const grouped = {
  name: "grouped",
  pattern: new RegExp(`\\[(${ITEM}(?:${COMMA.source}${ITEM})+|${RANGE})\\]`, "g"),
  items: (match) => match[1].split(COMMA).map(item),
};
