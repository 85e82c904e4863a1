// What a Reader tool's result holds (moca_agui.records.extract): whole records, compact
// search results, errors; the MCP text-content wrapper around them.
import { MAX_RESULT_CHARS, isPlainObject, parseJson } from "./json.js";

const MAX_DEPTH = 6; // wrappers inside wrappers; real results need at most 4
const MCP_ERROR = /^\s*MCP error -?\d+:/;

/** @typedef {{ record: Record<string, unknown> } | { compactRef: string }} ReaderItem
 * @typedef {import("./log.js").Log} Log */

/** The records and compact results in one Reader tool result, in the order given; throws
 * for one it cannot read (malformed JSON, too long). @param {unknown} result @param {Log} log
 * @returns {ReaderItem[]} */
export function readerItems(result, log) {
  /** @type {ReaderItem[]} */
  const items = [];
  collect(result, items, 0, log);
  return items;
}

/** @param {unknown} value @returns {boolean} */
const looksLikeRecord = (value) => isPlainObject(value) && "package" in value && "node" in value && "trust" in value;

/** @param {unknown} value @param {ReaderItem[]} items @param {number} depth @param {Log} log */
function collect(value, items, depth, log) {
  if (depth > MAX_DEPTH) throw new Error("wrapped too deeply to be a Reader result");
  if (typeof value === "string") {
    if (MCP_ERROR.test(value)) {
      log.debug(`the Reader answered an error: ${value.slice(0, 200)}`);
      return;
    }
    collect(parseJson(value), items, depth + 1, log);
  } else if (Array.isArray(value)) {
    for (const entry of value) collectEntry(entry, items, depth, log);
  } else if (isPlainObject(value)) {
    collectMapping(value, items, depth, log);
  }
}

/** @param {Record<string, any>} value @param {ReaderItem[]} items @param {number} depth
 * @param {Log} log */
function collectMapping(value, items, depth, log) {
  const keys = Object.keys(value);
  if (looksLikeRecord(value)) items.push({ record: value });
  else if (value.isError === true) log.debug("the Reader answered an error");
  else if ("error" in value) log.debug(`the Reader answered an error: ${JSON.stringify(value.error).slice(0, 200)}`);
  else if (Array.isArray(value.results)) collect(value.results, items, depth + 1, log);
  else if ("op" in value && "result" in value) {
    if (Array.isArray(value.result)) collect(value.result, items, depth + 1, log);
  } else if (Array.isArray(value.content)) collect(value.content, items, depth + 1, log);
  else if (keys.length === 1 && keys[0] === "result") collect(value.result, items, depth + 1, log);
  else if (isNumbered(value)) log.debug("a numbered result: read where the thread shows it");
  else if (typeof value.ref === "string" && value.ref && !("node" in value) && !("package" in value)) {
    items.push({ compactRef: value.ref });
  } else if (isPlainObject(value.metadata) && "moca_citation" in value.metadata) {
    let citation = value.metadata.moca_citation;
    if (typeof citation === "string") citation = parseJson(citation);
    if (looksLikeRecord(citation)) items.push({ record: citation });
  }
}

/** @param {unknown} entry @param {ReaderItem[]} items @param {number} depth @param {Log} log */
function collectEntry(entry, items, depth, log) {
  if (looksLikeRecord(entry)) items.push({ record: /** @type {Record<string, unknown>} */ (entry) });
  else if (isPlainObject(entry)) {
    if (entry.type === "text" && typeof entry.text === "string") collect(entry.text, items, depth + 1, log);
    else if (isNumbered(entry)) log.debug("a numbered result: read where the thread shows it");
    else collectMapping(entry, items, depth + 1, log);
  }
}

/** An entry of what a numbered Reader tool showed the model. @param {Record<string, unknown>} value */
const isNumbered = (value) => "result" in value && Object.keys(value).every((k) => k === "marker" || k === "result");

/** Each entry of a numbered result: its marker (null: none) and the Reader's result beside it;
 * null if `value` is not one. @param {unknown} value @returns {Array<[string | null, unknown]> | null} */
export function numberedView(value) {
  const entries = isPlainObject(value) ? value.results : undefined;
  if (!Array.isArray(entries) || !entries.length) return null;
  if (!entries.every((entry) => isPlainObject(entry) && isNumbered(entry))) return null;
  return entries.map((entry) => [typeof entry.marker === "string" ? entry.marker : null, entry.result]);
}

/** An earlier result's JSON text as a value (one text part is its text); else as it is.
 * @param {unknown} content */
export function readFast(content) {
  if (Array.isArray(content) && content.length === 1 && isPlainObject(content[0]) &&
      (content[0].type ?? "text") === "text" && typeof content[0].text === "string") {
    content = content[0].text;
  }
  if (typeof content === "string" && content.length <= MAX_RESULT_CHARS) {
    try {
      return JSON.parse(content);
    } catch {
      return content;
    }
  }
  return content;
}

/** Whether an earlier result no one could read is prose (an error text), not JSON the layer
 * failed to read. @param {unknown} shownValue */
export const isProse = (shownValue) => typeof shownValue === "string" && shownValue.length <= MAX_RESULT_CHARS &&
  !/^\s*[{[]/.test(shownValue);

