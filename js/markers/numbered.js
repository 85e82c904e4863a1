// The numbered style: `[n]`, also in `[1][2]`, `[[1]]` and `**[1]**`.
import { NUMBER } from "./numbers.js";

/** @type {import("../index.js").MarkerStyle} */
export const numbered = {
  name: "numbered",
  pattern: new RegExp(`\\[(${NUMBER})\\]`, "g"),
  items: (match) => [Number(match[1])],
};
