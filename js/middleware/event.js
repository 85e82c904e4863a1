// One answer's `moca.citations` value: the records as the Reader produced them (`text` dropped
// as the options and the size budget say), each with its marker (none: no `marker` key).
import { EVENT_VERSION } from "../index.js";
import { jsonBytes } from "./json.js";
import { Log } from "./log.js";

/**
 * @param {string} messageId
 * @param {Array<{ record: any, marker: string | null, capturedAt: Date }>} citations
 * @param {{ includeText: boolean, maxEventBytes: number, logger: import("./log.js").Logger }} options
 */
export function citationsValue(messageId, citations, options) {
  const entries = citations.map((citation) => {
    let record = citation.record;
    if (!options.includeText && "text" in record) record = withoutText(record);
    return citation.marker ? { marker: citation.marker, record } : { record };
  });
  /** @type {Record<string, unknown>} */
  const value = { version: EVENT_VERSION, messageId };
  if (citations.length) {
    const earliest = Math.min(...citations.map((c) => c.capturedAt.getTime()));
    value.computedAt = new Date(earliest).toISOString();
  }
  value.citations = entries;
  fit(value, entries, options.maxEventBytes, options.logger);
  return value;
}

/** @param {Record<string, unknown>} record */
function withoutText(record) {
  const { text, ...rest } = record;
  void text;
  return rest;
}

/** Drop `text` from the largest records first until the value's JSON fits `budget`.
 * @param {Record<string, unknown>} value @param {Array<{ record: any }>} entries @param {number} budget
 * @param {import("./log.js").Logger} logger */
function fit(value, entries, budget, logger) {
  let total = jsonBytes(value);
  if (total <= budget) return;
  const sized = entries.filter((entry) => "text" in entry.record)
    .map((entry) => /** @type {[number, { record: any }]} */ ([jsonBytes(entry.record), entry]))
    .sort((a, b) => b[0] - a[0]);
  for (const [bytes, entry] of sized) {
    entry.record = withoutText(entry.record);
    total -= bytes - jsonBytes(entry.record);
    if (total <= budget) return;
  }
  new Log(logger).warn(`the event for ${String(value.messageId)} is ${total} bytes with every text dropped, ` +
    `over maxEventBytes=${budget}; it is sent whole, as records may not be cut`);
}
