// What every marker style names: numbers n (ASCII digits, 1 to 999999999, no leading 0), and
// ranges of them. The twin of moca_agui.markers.style: the service reads the same syntax.

/** @typedef {import("../index.js").MarkerItem} MarkerItem */

/** How many numbers a range names at most: a longer one names nothing. */
export const MAX_RANGE = 10;
/** How long a marker's whole text is at most, in characters (code points). */
export const MAX_MARKER_LENGTH = 64;

/** The number `digits` writes (ASCII digits, 1 to 999999999, no leading 0), or null.
 * @param {string} digits @returns {number | null} */
export function number(digits) {
  return /^[1-9][0-9]{0,8}$/.test(digits) ? Number(digits) : null;
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
