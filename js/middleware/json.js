// JSON as the Python core reads it: strictly, and a copy that is plain JSON no one else holds.
import { log, reason } from "./log.js";

/** A tool result longer than this is not parsed (moca_agui MAX_RESULT_CHARS). */
export const MAX_RESULT_CHARS = 8 * 1024 * 1024;

/** @param {unknown} value @returns {value is Record<string, any>} */
export const isPlainObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

/** `text` parsed as moca_agui parses a Reader's result; throws for one it cannot read.
 * @param {string} text */
export function parseJson(text) {
  if (text.length > MAX_RESULT_CHARS) {
    throw new Error(`${text.length} characters, over the ${MAX_RESULT_CHARS} this layer parses`);
  }
  const value = JSON.parse(text);
  // Parsers differ on which of two equal keys wins, and a number out of a double's range is
  // no plain JSON. Written back, the value has as many colons as the text unless a key was
  // dropped (a text escaping a colon as \u003a is taken as it reads), and a `null` more for
  // each number that overflowed.
  const written = JSON.stringify(value);
  if (count(written, ":") < count(text, ":")) {
    throw new Error("duplicate key in an object; JSON parsers disagree on which one wins");
  }
  if (count(written, "null") > count(text, "null")) {
    throw new Error("not plain JSON: a number is out of a double's range");
  }
  return value;
}

/** How many times `part` occurs in `text`. @param {string} text @param {string} part */
function count(text, part) {
  let found = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) found += 1;
  return found;
}

/** A copy of `value` as plain JSON, or null (logged) if it is no JSON object.
 * @param {unknown} value @returns {Record<string, any> | null} */
export function plainCopy(value) {
  try {
    const copy = JSON.parse(JSON.stringify(value));
    return isPlainObject(copy) ? copy : null;
  } catch (error) {
    log.warn(`skipped a record from lookup: not plain JSON: ${reason(error)}`);
    return null;
  }
}

const encoder = new TextEncoder();
/** Bytes of `value` as compact UTF-8 JSON. @param {unknown} value */
export const jsonBytes = (value) => encoder.encode(JSON.stringify(value)).length;
