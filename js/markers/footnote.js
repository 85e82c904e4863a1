// The footnote style: `[^n]`, inline and at the start of its definition line `[^n]: ...`
// (a definition that is a CommonMark link reference definition is a link, not a marker).
import { number } from "./numbers.js";

/** @type {import("../index.js").MarkerStyle} */
export const footnote = {
  name: "footnote",
  opener: "[",
  pattern: /\[\^[0-9]{1,9}\]/g,
  items(marker) {
    const found = marker.startsWith("[^") ? number(marker.slice(2, -1)) : null;
    return found === null ? null : [found];
  },
};
