// The thread the model reads (moca_agui.records.history and records.order): the tool results
// of its earlier turns, in the order the model read them, and which entries' places no one
// knows (a turn whose results the thread lists out of their calls' order).
import { isPlainObject } from "./json.js";

/** @typedef {{ tool: string, callId: string, content: unknown, turn: number, known: boolean }} EarlierResult */

/**
 * Each tool result of `messages`, in the order the model issued the calls; the turns of
 * Reader results the thread lists out of their calls' order are one turn, order not known.
 * Throws for an item that is no message.
 * @param {unknown[]} messages @param {(name: string) => boolean} counts @returns {EarlierResult[]}
 */
export function earlierResults(messages, counts) {
  /** @type {Array<[string, string, number]>} */
  const calls = [];
  /** @type {Map<string, unknown>} */
  const contents = new Map();
  /** @type {string[]} */
  const answered = [];
  let turn = 0;
  for (const message of messages) {
    const role = isPlainObject(message) ? message.role : undefined;
    if (role === undefined || role === null) {
      throw new Error(`the thread holds an item that is no message: ${JSON.stringify(message)?.slice(0, 80)}`);
    }
    const m = /** @type {Record<string, any>} */ (message);
    if (role === "user") turn += 1;
    else if (role === "assistant") {
      for (const call of Array.isArray(m.toolCalls) ? m.toolCalls : []) {
        const name = isPlainObject(call) && isPlainObject(call.function) ? call.function.name : undefined;
        if (typeof call?.id === "string" && typeof name === "string") calls.push([call.id, name, turn]);
      }
    } else if (role === "tool") {
      if (typeof m.toolCallId === "string" && !contents.has(m.toolCallId)) {
        contents.set(m.toolCallId, m.content);
        answered.push(m.toolCallId);
      }
    }
  }
  /** @type {Array<[string, string, number]>} */
  const results = [];
  /** @type {Set<string>} */
  const seen = new Set();
  for (const [id, name, callTurn] of calls) {
    if (contents.has(id) && !seen.has(id)) {
      seen.add(id);
      results.push([id, name, callTurn]);
    }
  }
  const readAs = listedOutOfOrder(results.filter(([, name]) => counts(name)).map(([id, , t]) => [id, t]), answered);
  return results.map(([id, name, t]) => {
    const as = readAs.get(t);
    return { tool: name, callId: id, content: contents.get(id), turn: as ?? t, known: as === undefined };
  });
}

/**
 * The thread the model reads where the agent keeps it: the `kept` messages, then the
 * request's `sent` messages it does not hold, so no result counts twice (a sent message
 * whose id the kept thread holds is passed over, as are a sent assistant message's calls
 * whose ids it holds and a sent tool message answering a call it answered).
 * @param {unknown[]} kept @param {unknown[]} sent @returns {unknown[]}
 */
export function keptThenSent(kept, sent) {
  const thread = [...kept];
  const ids = new Set(kept.map((m) => (isPlainObject(m) ? m.id : undefined)).filter((id) => id !== undefined));
  /** @type {Set<unknown>} */
  const calls = new Set();
  /** @type {Set<unknown>} */
  const answered = new Set();
  for (const message of kept) {
    if (!isPlainObject(message)) continue;
    if (message.role === "assistant" && Array.isArray(message.toolCalls)) {
      for (const call of message.toolCalls) calls.add(isPlainObject(call) ? call.id : undefined);
    } else if (message.role === "tool") answered.add(message.toolCallId);
  }
  for (const message of sent) {
    if (!isPlainObject(message) || ids.has(message.id)) continue;
    if (message.role === "assistant") {
      const own = (Array.isArray(message.toolCalls) ? message.toolCalls : [])
        .filter((call) => !calls.has(isPlainObject(call) ? call.id : undefined));
      thread.push({ role: "assistant", toolCalls: own });
    } else if (message.role !== "tool" || !answered.has(message.toolCallId)) {
      thread.push(message);
    }
  }
  return thread;
}

/** turn -> the first turn it is read as one with, for the turns whose results `answered`
 * lists out of their calls' order. @param {Array<[string, number]>} calls @param {string[]} answered */
function listedOutOfOrder(calls, answered) {
  const place = new Map(calls.map(([id], n) => [id, n]));
  /** @type {Array<[number, number]>} */
  const spans = [];
  let latest = -1;
  for (const id of answered) {
    const at = place.get(id);
    if (at === undefined) continue;
    if (at < latest) spans.push([calls[at][1], calls[latest][1]]);
    else latest = at;
  }
  /** @type {Array<[number, number]>} */
  const joined = [];
  for (const [low, high] of spans.sort((a, b) => a[0] - b[0] || a[1] - b[1])) {
    const last = joined[joined.length - 1];
    if (last && low <= last[1]) last[1] = Math.max(last[1], high);
    else joined.push([low, high]);
  }
  /** @type {Map<number, number>} */
  const readAs = new Map();
  for (const [low, high] of joined) for (let t = low; t <= high; t += 1) readAs.set(t, low);
  return readAs;
}

/**
 * The keys of the entries whose place may differ between the orders each turn's results could
 * have been read in (`turns` in order; none of a turn whose order is known). A turn adds the
 * same entries in every order; inside one whose order is not known the next place is known
 * while every result with an entry not yet placed has the same such entry first.
 * @param {Array<{ known: boolean, results: string[][] }>} turns @returns {Set<string>}
 */
export function unsure(turns) {
  /** @type {Set<string>} */
  const placed = new Set();
  /** @type {Set<string>} */
  const left = new Set();
  for (const { known, results } of turns) {
    if (known) {
      for (const result of results) for (const key of result) placed.add(key);
      continue;
    }
    let live = results.filter((r) => r.length).map((result) => ({ result, at: 0 }));
    for (;;) {
      /** @type {Set<string>} */
      const firsts = new Set();
      /** @type {typeof live} */
      const moved = [];
      for (let { result, at } of live) {
        while (at < result.length && placed.has(result[at])) at += 1;
        if (at < result.length) {
          firsts.add(result[at]);
          moved.push({ result, at });
        }
      }
      live = moved;
      if (firsts.size === 1) {
        placed.add([...firsts][0]);
        continue;
      }
      for (const result of results) for (const key of result) if (!placed.has(key)) left.add(key);
      for (const result of results) for (const key of result) placed.add(key);
      break;
    }
  }
  return left;
}
