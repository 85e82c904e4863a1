// JSON as the Python core reads it: strictly, and a copy that is plain JSON no one else holds.
import { reason } from "./log.js";

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
  notPlain(text);
  return value;
}

/** Throws if `text`, JSON that parsed, reads two ways: an object holds a key twice (compared
 * decoded: parsers differ on which one wins), or a number is out of a double's range (it
 * reads as Infinity, written as null). One pass over the text, a set of keys per open object.
 * @param {string} text */
function notPlain(text) {
  /** @type {Array<Set<string> | null>} per open object its keys so far, per open array null */
  const open = [];
  let keyNext = false;
  for (let at = 0; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      const end = stringEnd(text, at);
      const keys = open[open.length - 1];
      if (keyNext && keys) {
        const raw = text.slice(at + 1, end);
        const key = raw.includes("\\") ? JSON.parse(`"${raw}"`) : raw;
        if (keys.has(key)) throw new Error("duplicate key in an object; JSON parsers disagree on which one wins");
        keys.add(key);
      }
      keyNext = false;
      at = end;
    } else if (code === OPEN_OBJECT) {
      open.push(new Set());
      keyNext = true;
    } else if (code === OPEN_ARRAY) {
      open.push(null);
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      open.pop();
    } else if (code === COMMA) {
      keyNext = Boolean(open[open.length - 1]);
    } else if (code === MINUS || isDigit(code)) {
      let end = at + 1;
      while (end < text.length && isNumberPart(text.charCodeAt(end))) end += 1;
      if (!Number.isFinite(Number(text.slice(at, end)))) {
        throw new Error("not plain JSON: a number is out of a double's range");
      }
      at = end - 1;
    }
  }
}

const [QUOTE, BACKSLASH, COMMA, MINUS, PLUS, DOT] = ['"', "\\", ",", "-", "+", "."].map((c) => c.charCodeAt(0));
const [OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY] = ["{", "}", "[", "]"].map((c) => c.charCodeAt(0));
const [DIGIT_0, DIGIT_9, LOWER_E, UPPER_E] = ["0", "9", "e", "E"].map((c) => c.charCodeAt(0));

/** @param {number} code */
const isDigit = (code) => code >= DIGIT_0 && code <= DIGIT_9;

/** @param {number} code */
const isNumberPart = (code) => isDigit(code) || code === DOT || code === LOWER_E || code === UPPER_E ||
  code === MINUS || code === PLUS;

/** Where the JSON string that opens at `at` closes: the next quote after no odd run of
 * backslashes. @param {string} text @param {number} at */
function stringEnd(text, at) {
  let end = text.indexOf('"', at + 1);
  for (;;) {
    let escapes = 0;
    while (text.charCodeAt(end - 1 - escapes) === BACKSLASH) escapes += 1;
    if (escapes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/** A copy of `value` as plain JSON, or null (logged) if it is no JSON object.
 * @param {unknown} value @param {import("./log.js").Log} log @returns {Record<string, any> | null} */
export function plainCopy(value, log) {
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
