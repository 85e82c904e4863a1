// Every marker style moca-agui reads, in one list: a style is one module of this folder.
// locateMarkers and findWrittenMarkers read marker syntax only through MARKER_STYLES.
import { footnote } from "./footnote.js";
import { fullwidth } from "./fullwidth.js";
import { grouped } from "./grouped.js";
import { numbered } from "./numbered.js";
import { MAX_MARKER_LENGTH } from "./numbers.js";

export { MAX_MARKER_LENGTH, MAX_RANGE, namedNumbers } from "./numbers.js";

/** @typedef {import("../index.js").MarkerItem} MarkerItem */
/** @typedef {import("../index.js").MarkerStyle} MarkerStyle */

/** @type {ReadonlyArray<MarkerStyle>} */
export const MARKER_STYLES = Object.freeze([numbered, grouped, footnote, fullwidth]);

/**
 * The style and items of `match`, a match of `style.pattern`, or null when it names nothing
 * (longer than MAX_MARKER_LENGTH code points).
 * @param {MarkerStyle} style @param {RegExpMatchArray} match
 * @returns {{ style: string, items: MarkerItem[] } | null}
 */
export function readMatch(style, match) {
  const text = match[0];
  const long = text.length > 2 * MAX_MARKER_LENGTH || [...text].length > MAX_MARKER_LENGTH;
  return long ? null : { style: style.name, items: style.items(match) };
}

/**
 * What `marker`, a whole marker text, names in its style (`"[1, 2]"`: grouped, 1 and 2), or
 * null if it is no marker of a style (a plugin's own marker text, say).
 * @param {string} marker @returns {{ style: string, items: MarkerItem[] } | null}
 */
export function readMarker(marker) {
  if (marker.length > 2 * MAX_MARKER_LENGTH) return null;
  for (const style of MARKER_STYLES) {
    for (const match of marker.matchAll(style.pattern)) {
      if (match.index === 0 && match[0].length === marker.length) return readMatch(style, match);
    }
  }
  return null;
}
