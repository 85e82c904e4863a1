// Every marker style moca-agui reads, in one list: a style is one module of this folder, the
// twin of a module of moca_agui.markers. findWrittenMarkers and locateMarkers read marker
// syntax only through MARKER_STYLES.
import { footnote } from "./footnote.js";
import { fullwidth } from "./fullwidth.js";
import { grouped } from "./grouped.js";
import { numbered } from "./numbered.js";

import { MAX_MARKER_LENGTH } from "./numbers.js";

export { MAX_MARKER_LENGTH, MAX_RANGE, namedNumbers } from "./numbers.js";

/** @typedef {import("../index.js").MarkerItem} MarkerItem */
/** @typedef {import("../index.js").MarkerStyle} MarkerStyle */

/** @type {ReadonlyArray<MarkerStyle>} */
export const MARKER_STYLES = Object.freeze([footnote, fullwidth, grouped, numbered]);

/**
 * What `marker`, a whole marker text, names (`"[1, 2]"`: grouped, 1 and 2), or null if it is
 * no style's marker or names no number (a plugin's own marker text, `[S1]`, say).
 * @param {string} marker @returns {{ style: string, items: MarkerItem[] } | null}
 */
export function readMarker(marker) {
  const whole = (/** @type {MarkerStyle} */ style) => {
    const [first] = marker.matchAll(style.pattern);
    return first?.index === 0 && first[0].length === marker.length;
  };
  // a marker's code points are at most two UTF-16 units each: a longer text is none
  return marker.length <= 2 * MAX_MARKER_LENGTH && MARKER_STYLES.some(whole) ? readItems(marker) : null;
}

/**
 * What `marker`, a text one of the styles' patterns matched, names in the first style that
 * reads it, or null if none does.
 * @param {string} marker @returns {{ style: string, items: MarkerItem[] } | null}
 */
export function readItems(marker) {
  for (const style of MARKER_STYLES) {
    const items = style.items(marker);
    if (items !== null) return { style: style.name, items };
  }
  return null;
}
