// What every marker style names: numbers n (ASCII digits, 1 to 999999999, no leading 0), and
// ranges of them. The twin of moca_agui's marker styles: the service reads the same syntax.

/** @typedef {import("../index.js").MarkerItem} MarkerItem */

/** A number a marker names, as a pattern's source: 1 to 999999999, no leading 0. */
export const NUMBER = "[1-9][0-9]{0,8}";
/** A range `a-b` or `a–b` (hyphen-minus or en dash, no spaces), as a pattern's source. */
export const RANGE = `${NUMBER}[-\u2013]${NUMBER}`;
/** How many numbers a range names at most: a longer one names nothing. */
export const MAX_RANGE = 10;
/** How long a marker's whole text is at most, in code points: a longer one names nothing. */
export const MAX_MARKER_LENGTH = 64;

/** A number or a range as written (`3`, `1-3`, `1–3`). @param {string} text
 * @returns {MarkerItem} */
export function item(text) {
  const [from, to] = text.split(/[-\u2013]/).map(Number);
  return to === undefined ? from : { from, to };
}

/**
 * The numbers `items` name, in the order written, each once: a range's numbers ascending,
 * only when it goes up, holds at most MAX_RANGE numbers and `knows` both its ends (else it
 * names nothing). A single number is kept whatever it names.
 * @param {ReadonlyArray<MarkerItem>} items @param {(n: number) => boolean} knows
 * @returns {number[]}
 */
export function namedNumbers(items, knows) {
  /** @type {Set<number>} */
  const numbers = new Set();
  for (const named of items) {
    if (typeof named === "number") numbers.add(named);
    else if (named.from < named.to && named.to - named.from < MAX_RANGE &&
      knows(named.from) && knows(named.to)) {
      for (let n = named.from; n <= named.to; n += 1) numbers.add(n);
    }
  }
  return [...numbers];
}
