// Where an answer names its sources: markers (read where CommonMark shows text) and
// versioned node refs (moca_agui.records.references).
import { MAX_RANGE, findWrittenMarkers, namedNumbers } from "../index.js";

/**
 * Each marker `text` shows as text, in any style (findWrittenMarkers: `[1]`, `[1, 2]`,
 * `[1-3]`, `[^1]`, `【1†source】`), in order, with the numbers it names: a range only when
 * `knows` both its ends (and it goes up and holds at most MAX_RANGE numbers, else logged).
 * @param {string} text @param {(n: number) => boolean} knows
 * @param {import("./log.js").Log} log
 * @returns {Array<{ start: number, marker: string, numbers: number[] }>}
 */
export function markersIn(text, knows, log) {
  const found = [];
  for (const { start, text: marker, items } of findWrittenMarkers(text)) {
    for (const item of items) {
      if (typeof item !== "number" && !namedNumbers([item], knows).length) {
        log.debug(`left out ${item.from}-${item.to} of ${marker}: a range goes up, holds at most ` +
          `${MAX_RANGE} numbers and both its ends name a source of this run`);
      }
    }
    found.push({ start, marker, numbers: namedNumbers(items, knows) });
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
 * @param {Map<string, unknown>} known @param {import("./log.js").Log} log
 * @returns {Array<[number, string]>} */
export function findRefs(text, known, log) {
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

