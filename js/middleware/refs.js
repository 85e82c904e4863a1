// Where an answer names its sources: markers (read where CommonMark shows text) and
// versioned node refs (moca_agui.records.references).
import { shownMarkers } from "../index.js";
import { log } from "./log.js";

/** n if `marker` is `[n]` as the numbering writes it (no leading 0, at most 9 digits).
 * @param {string} marker */
function markerNumber(marker) {
  const inner = /^\[([1-9][0-9]{0,8})\]$/.exec(marker);
  return inner ? Number(inner[1]) : null;
}

/**
 * Each marker `text` shows as text, in order, with the numbers it names: the one place the
 * marker syntax is read (issue 47's marker styles replace it, a marker naming several).
 * @param {string} text @returns {Array<{ start: number, marker: string, numbers: number[] }>}
 */
export function markersIn(text) {
  const found = [];
  for (const { start, marker } of shownMarkers(text)) {
    const number = markerNumber(marker);
    if (number !== null) found.push({ start, marker, numbers: [number] });
  }
  return found;
}

const DELIMITERS = "\\s<>()\\[\\]{}\"'`|\u201c\u201d\u201e\u201f\u2018\u2019\u201a\u201b" +
  "\u00ab\u00bb\u2039\u203a\uff08\uff09\uff3b\uff3d\uff5b\uff5d" +
  "\u300c\u300d\u300e\u300f\u3010\u3011\u3008\u3009\u300a\u300b\u3014\u3015";
const RUN = new RegExp(`[^${DELIMITERS}]+`, "gu");
const EDGE_MARKUP = "*_~";
const TRIMMABLE = /^[\p{P}*_~]$/u;

/** [start, ref] of each mention of a ref in `known`. @param {string} text
 * @param {Map<string, unknown>} known @returns {Array<[number, string]>} */
export function findRefs(text, known) {
  /** @type {Array<[number, string]>} */
  const found = [];
  if (!known.size || !text.includes("#")) return found;
  for (const match of text.matchAll(RUN)) {
    let token = match[0];
    if (!token.includes("#") || !token.includes("@")) continue;
    let start = match.index ?? 0;
    while (token && !known.has(token) && TRIMMABLE.test(lastChar(token))) token = token.slice(0, -lastChar(token).length);
    while (token && !known.has(token) && EDGE_MARKUP.includes(token[0])) {
      token = token.slice(1);
      start += 1;
    }
    if (known.has(token)) found.push([start, token]);
    else log.debug(`left out ${token.slice(0, 200)}: no Reader result of this run has it`);
  }
  return found;
}

/** @param {string} text */
const lastChar = (text) => {
  const code = text.charCodeAt(text.length - 1);
  return code >= 0xdc00 && code <= 0xdfff && text.length > 1 ? text.slice(-2) : text.slice(-1);
};

