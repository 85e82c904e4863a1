// The numbered style: `[n]`, also in `[1][2]`, `[[1]]` and `**[1]**`. Its pattern takes any
// bracketed word: a plugin's marker table may name one (`[S1]`) by its whole text.
import { number } from "./numbers.js";

/** @type {import("../index.js").MarkerStyle} */
export const numbered = {
  name: "numbered",
  opener: "[",
  pattern: /\[[^[\]\s]{1,32}\]/g,
  items(marker) {
    const bracketed = marker.startsWith("[") && marker.endsWith("]");
    const found = bracketed ? number(marker.slice(1, -1)) : null;
    return found === null ? null : [found];
  },
};
