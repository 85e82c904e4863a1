// The grouped and ranged style: `[1, 2]`, `[1,2]`, `[1-3]`, `[1–3]`, `[1, 3–5]`: two items or
// more separated by commas (spaces or tabs around each), or a single range; an item is a
// number or a range (hyphen-minus or en dash, no spaces).
import { MAX_MARKER_LENGTH, number } from "./numbers.js";

const RANGE = "[0-9]{1,9}[-\u2013][0-9]{1,9}";
const ITEM = "[0-9]{1,9}(?:[-\u2013][0-9]{1,9})?";
const SEPARATOR = /[ \t]*,[ \t]*/;

/** @type {import("../index.js").MarkerStyle} */
export const grouped = {
  name: "grouped",
  opener: "[",
  // one range, or two items or more: never a lone `[1]`, the numbered style's
  pattern: new RegExp(`\\[(?:${RANGE}|${ITEM}(?:${SEPARATOR.source}${ITEM}){1,31})\\]`, "g"),
  items(marker) {
    const bracketed = marker.startsWith("[") && marker.endsWith("]");
    if (!bracketed || marker.length > MAX_MARKER_LENGTH) return null;
    /** @type {import("../index.js").MarkerItem[]} */
    const items = [];
    for (const written of marker.slice(1, -1).split(SEPARATOR)) {
      const dash = written.search(/[-\u2013]/);
      const from = number(dash === -1 ? written : written.slice(0, dash));
      const to = dash === -1 ? null : number(written.slice(dash + 1));
      if (from === null || (dash !== -1 && to === null)) return null; // `[01, 2]`, `[1-2-3]`
      items.push(to === null ? from : { from, to });
    }
    return items.length === 1 && typeof items[0] === "number" ? null : items; // `[1]`: numbered
  },
};
