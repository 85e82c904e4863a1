// moca-agui/middleware: `moca.citations` for any TypeScript AG-UI agent (Mastra, CopilotKit's
// runtime, any AbstractAgent of @ag-ui/client), as the Python core (moca_agui.cite) sends it.
//
//   agent.use(new CitationMiddleware());
//
// It follows the stream its place in the middleware chain gives it (chunked or expanded
// events), keeps the records the Reader's tools returned in this run (TOOL_CALL_RESULT), and
// sends one `moca.citations` event per answer after its TEXT_MESSAGE_END and before
// RUN_FINISHED. Markers count over the thread in `RunAgentInput.messages`, in the model's
// order. The agent's own events pass through as they came; a failure is logged and the stream
// flows on. State belongs to one subscription of `run`, never to the instance.
import { Middleware } from "@ag-ui/client";
import { Observable } from "rxjs";
import { EVENT_NAME, EVENT_VERSION, METADATA_KEY, recordProblem, shownMarkers } from "./index.js";

/** The tool names of the reference MOCA Reader (moca_agui.DEFAULT_READER_TOOLS). */
export const DEFAULT_READER_TOOLS = Object.freeze(["moca_search", "moca_get_node", "moca_structure"]);

/** A tool result longer than this is not parsed (moca_agui MAX_RESULT_CHARS). */
const MAX_RESULT_CHARS = 8 * 1024 * 1024;
const MAX_DEPTH = 6; // wrappers inside wrappers; real results need at most 4
const MCP_ERROR = /^\s*MCP error -?\d+:/;
const MCP_PREFIX = "mcp__";

const DEFAULTS = Object.freeze({
  readerTools: DEFAULT_READER_TOOLS,
  includeText: true,
  lookup: null,
  packages: null,
  maxEventBytes: 256 * 1024,
  lookupTimeout: 10,
  maxLookups: 64,
  lookupConcurrency: 8,
  lookupDeadline: 30,
  keptThread: null,
});

const log = {
  /** @param {string} message @param {unknown[]} rest */
  warn: (message, ...rest) => console.warn(`moca-agui: ${message}`, ...rest),
  /** @param {string} message @param {unknown[]} rest */
  debug: (message, ...rest) => console.debug(`moca-agui: ${message}`, ...rest),
};

/**
 * @typedef {import("./middleware.d.ts").CitationMiddlewareOptions} CitationMiddlewareOptions
 * @typedef {{ readerTools: Set<string>, includeText: boolean,
 *   lookup: ((ref: string) => unknown) | null, packages: Set<string> | null,
 *   maxEventBytes: number, lookupTimeout: number, maxLookups: number,
 *   lookupConcurrency: number, lookupDeadline: number,
 *   keptThread: ((input: unknown) => unknown) | null }} Options
 * @typedef {{ type: string, [field: string]: any }} AnyEvent
 */

/** Options checked once: unknown names and wrong types are a TypeError.
 * @param {CitationMiddlewareOptions} given @returns {Options} */
export function citationOptions(given = {}) {
  if (given === null || typeof given !== "object") throw new TypeError("options must be an object");
  const unknown = Object.keys(given).filter((name) => !(name in DEFAULTS)).sort();
  if (unknown.length) {
    throw new TypeError(`unknown moca-agui option(s) ${unknown.join(", ")}; ` +
      `the options are ${Object.keys(DEFAULTS).sort().join(", ")}`);
  }
  const options = { ...DEFAULTS, ...given };
  const names = (/** @type {unknown} */ value, /** @type {string} */ option) => {
    if (typeof value === "string" || value === null || typeof value !== "object" ||
        !(Symbol.iterator in value)) {
      throw new TypeError(`${option} must be a collection of strings, e.g. [${JSON.stringify(value)}]`);
    }
    const set = new Set(/** @type {Iterable<unknown>} */ (value));
    if (![...set].every((name) => typeof name === "string")) {
      throw new TypeError(`${option} must hold strings only`);
    }
    return /** @type {Set<string>} */ (set);
  };
  if (options.keptThread !== null && typeof options.keptThread !== "function") {
    throw new TypeError("keptThread must be a function taking the run's input and returning its messages");
  }
  if (options.lookup !== null && typeof options.lookup !== "function") {
    throw new TypeError("lookup must be a function taking a ref and returning a record or null");
  }
  for (const option of ["maxEventBytes", "maxLookups", "lookupConcurrency"]) {
    const count = /** @type {any} */ (options)[option];
    if (!Number.isInteger(count) || count <= 0) throw new TypeError(`${option} must be a positive integer`);
  }
  for (const option of ["lookupTimeout", "lookupDeadline"]) {
    const seconds = /** @type {any} */ (options)[option];
    if (typeof seconds !== "number" || !(seconds > 0)) {
      throw new TypeError(`${option} must be a positive number of seconds`);
    }
  }
  if (typeof options.includeText !== "boolean") throw new TypeError("includeText must be a boolean");
  return {
    ...options,
    readerTools: names(options.readerTools, "readerTools"),
    packages: options.packages === null ? null : names(options.packages, "packages"),
    lookup: /** @type {Options["lookup"]} */ (options.lookup),
    keptThread: /** @type {Options["keptThread"]} */ (options.keptThread),
  };
}

/**
 * Adds one `moca.citations` event per answer to the stream of the agent it is used on:
 * `agent.use(new CitationMiddleware(options))`. One instance serves any number of runs,
 * concurrent ones too: each subscription of `run` has its own state.
 */
export class CitationMiddleware extends Middleware {
  /** @param {CitationMiddlewareOptions} [options] */
  constructor(options = {}) {
    super();
    /** @readonly */
    this.options = citationOptions(options);
  }

  /**
   * The events of `next.run(input)`, unchanged and in order, plus the citation events.
   * @param {import("@ag-ui/client").RunAgentInput} input
   * @param {import("@ag-ui/client").AbstractAgent} next
   * @returns {Observable<import("@ag-ui/client").BaseEvent>}
   */
  run(input, next) {
    return citedObservable(next.run(input), input, this.options);
  }
}

/**
 * `events` with the citations `options` say, as one observable of this run: the state is
 * made on subscription.
 * @template E
 * @param {import("rxjs").Observable<E>} events @param {unknown} input @param {Options} options
 * @returns {Observable<E>}
 */
export function citedObservable(events, input, options) {
  return new Observable((subscriber) => {
    const stream = new CitingStream(options, input, (/** @type {any} */ event) => subscriber.next(event));
    const upstream = events.subscribe({
      next: (event) => stream.push(/** @type {any} */ (event)),
      error: (error) => stream.error((e) => subscriber.error(e), error),
      complete: () => stream.end(() => subscriber.complete()),
    });
    return () => {
      stream.stop();
      upstream.unsubscribe();
    };
  });
}

// -- the stream: events in order, held only while a snapshot or the run's end waits ------------

/** Event types that close an open chunked message (`transformChunks` of @ag-ui/client). */
const CLOSES_CHUNK = new Set([
  "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END",
  "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT",
  "STATE_SNAPSHOT", "STATE_DELTA", "CUSTOM", "STEP_STARTED", "STEP_FINISHED",
  "THINKING_START", "THINKING_END", "THINKING_TEXT_MESSAGE_START",
  "THINKING_TEXT_MESSAGE_CONTENT", "THINKING_TEXT_MESSAGE_END",
  "REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT",
  "REASONING_MESSAGE_END", "REASONING_END",
  "RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "MESSAGES_SNAPSHOT",
]);

/** One subscription's stream: sends each event on at once, unless the run's citations must
 * go before it (RUN_FINISHED) or a snapshot waits for its lookups; what comes meanwhile
 * waits its turn, in order. */
export class CitingStream {
  /** @param {Options} options @param {unknown} input @param {(event: AnyEvent) => void} emit */
  constructor(options, input, emit) {
    this.emit = emit;
    this.alive = true;
    /** @type {Array<AnyEvent | (() => Promise<void> | null)> | null} what waits while busy */
    this.queue = null;
    this.run = new CitationRun(options);
    /** @type {{ kind: string, id: string } | null} the open chunked message or tool call */
    this.chunk = null;
    /** @type {Map<string, string>} message id -> role */
    this.roles = new Map();
    this.started = false;
    this.finished = false;
    try {
      this.run.readInput(input);
    } catch (error) {
      this.fail(error);
    }
  }

  /** @param {AnyEvent | (() => Promise<void> | null)} item */
  push(item) {
    if (this.queue) this.queue.push(item);
    else this.step(item, []);
  }

  /** @param {AnyEvent | (() => Promise<void> | null)} item @param {Array<any>} rest */
  step(item, rest) {
    const waiting = typeof item === "function" ? item() : this.handle(item);
    if (!waiting) return false;
    this.queue = rest;
    waiting.then(() => this.drain(), () => this.drain());
    return true;
  }

  drain() {
    const queue = this.queue ?? [];
    this.queue = null;
    while (queue.length) {
      if (this.step(/** @type {any} */ (queue.shift()), queue)) return;
    }
  }

  /** The upstream failed: pass its error on, in its turn. @param {(error: unknown) => void} fail
   * @param {unknown} error */
  error(fail, error) {
    this.push(() => {
      fail(error);
      return null;
    });
  }

  /** The upstream completed: send what is still due, then `complete`. @param {() => void} complete */
  end(complete) {
    this.push(() => {
      const waiting = this.alive ? this.close() : null;
      if (!waiting) {
        complete();
        return null;
      }
      return waiting.then(complete);
    });
  }

  /** The subscriber left: nothing more is sent, no lookup goes on. */
  stop() {
    this.alive = false;
    this.run.endLookups();
    this.emit = () => {};
  }

  /** @param {unknown} error */
  fail(error) {
    if (this.alive) log.warn("citations off for this run; the answer is unchanged", error);
    this.alive = false;
    this.run.endLookups();
  }

  /** One event: read it, and send it (after what is due before it).
   * @param {AnyEvent} event @returns {Promise<void> | null} what it waits for, if anything */
  handle(event) {
    let due = false;
    if (this.alive || event?.type === "RUN_STARTED") {
      try {
        due = this.observe(event);
      } catch (error) {
        this.fail(error);
        due = false;
      }
    }
    if (due) {
      const sent = this.flush();
      if (sent) return sent.then(() => this.emit(event));
    } else if (this.alive && event.type === "MESSAGES_SNAPSHOT" && this.run.carried.length) {
      const carried = this.run.carried;
      this.run.carried = [];
      const sent = (/** @type {Map<string, object>} */ values) => this.emit(withCitations(event, values));
      const failed = (/** @type {unknown} */ error) => {
        log.warn("the snapshot carries no citations; sent as it came", error);
        this.emit(event);
      };
      try {
        const values = this.run.values(carried);
        if (!(values instanceof Promise)) sent(values);
        else return values.then(sent, failed);
      } catch (error) {
        failed(error);
      }
      return null;
    }
    this.emit(event);
    return null;
  }

  /** The run's citation events, sent once (none after RUN_ERROR or a failure).
   * @returns {Promise<void> | null} */
  flush() {
    if (!this.alive || this.finished) return null;
    this.finished = true;
    const failed = (/** @type {unknown} */ error) =>
      log.warn("no citations sent for this run; the answer is unchanged", error);
    try {
      for (const messageId of this.run.open) {
        log.warn(`message ${messageId} never ended; no citations for it`);
        this.run.mute(messageId);
      }
      const events = this.run.due();
      if (!(events instanceof Promise)) {
        for (const event of events) this.emit(event);
        return null;
      }
      return events.then((made) => {
        for (const event of made) this.emit(event);
      }, failed);
    } catch (error) {
      failed(error);
      return null;
    }
  }

  /** The stream ended: the open chunked message ends, the citations still due go.
   * @returns {Promise<void> | null} */
  close() {
    this.closeChunk();
    return this.flush();
  }

  /** Follow one event as @ag-ui/client applies it (moca_agui's Follower); true when the
   * run's citations are due before it. @param {AnyEvent} event */
  observe(event) {
    const run = this.run;
    const type = event.type;
    if (this.chunk && CLOSES_CHUNK.has(type)) this.closeChunk();
    switch (type) {
      case "RUN_STARTED":
        if (this.started) {
          if (this.alive && !this.finished) {
            log.warn("a run began before the last one finished; no citations for the unfinished one");
          }
          this.run = run.renewed();
          this.alive = true;
          this.finished = false;
        }
        this.started = true;
        return false;
      case "TEXT_MESSAGE_START":
        this.open(messageIdOf(event), event.role);
        return false;
      case "TEXT_MESSAGE_CONTENT": {
        const id = messageIdOf(event);
        if (typeof event.delta !== "string") throw new Error("a malformed TEXT_MESSAGE_CONTENT: delta is not a string");
        run.text(id, event.delta);
        return false;
      }
      case "TEXT_MESSAGE_END":
        run.closed(messageIdOf(event));
        return false;
      case "TEXT_MESSAGE_CHUNK":
        this.textChunk(event);
        return false;
      case "TOOL_CALL_START":
        this.nameCall(event.toolCallId, event.toolCallName);
        return false;
      case "TOOL_CALL_CHUNK":
        if (this.continues("tool", event.toolCallId) !== null) return false;
        if (typeof event.toolCallId !== "string" || typeof event.toolCallName !== "string") return false;
        this.chunk = { kind: "tool", id: event.toolCallId };
        this.nameCall(event.toolCallId, event.toolCallName);
        return false;
      case "REASONING_MESSAGE_CHUNK":
        if (this.continues("reasoning", event.messageId) === null && typeof event.messageId === "string") {
          this.chunk = { kind: "reasoning", id: event.messageId };
        }
        return false;
      case "TOOL_CALL_RESULT":
        if (typeof event.toolCallId !== "string") throw new Error("a malformed TOOL_CALL_RESULT: toolCallId is not a string");
        run.result(event.toolCallId, event.content);
        return false;
      case "MESSAGES_SNAPSHOT":
        this.snapshot(event.messages);
        return false;
      case "CUSTOM":
        if (event.name === EVENT_NAME && isPlainObject(event.value)) {
          run.mute(String(event.value.messageId)); // cited upstream: passed through, never twice
        }
        return false;
      case "RUN_FINISHED":
        return true;
      case "RUN_ERROR":
        this.alive = false;
        run.endLookups();
        return false;
      default:
        return false;
    }
  }

  /** @param {unknown} id @param {unknown} role */
  open(id, role) {
    const str = /** @type {string} */ (id);
    if (!this.roles.has(str)) this.roles.set(str, typeof role === "string" ? role : "assistant");
    this.run.opened(str, /** @type {string} */ (this.roles.get(str)));
  }

  /** @param {unknown} callId @param {unknown} name */
  nameCall(callId, name) {
    if (typeof callId === "string" && typeof name === "string") this.run.callMade(callId, name);
  }

  /** The id of the open chunk of `kind` a chunk continues; else what is open closes.
   * @param {string} kind @param {unknown} id */
  continues(kind, id) {
    const chunk = this.chunk;
    if (chunk && chunk.kind === kind && (id === undefined || id === null || id === chunk.id)) return chunk.id;
    this.closeChunk();
    return null;
  }

  /** @param {AnyEvent} event */
  textChunk(event) {
    const { messageId, delta } = event;
    const absent = (/** @type {unknown} */ v) => v === undefined || v === null;
    if ((!absent(messageId) && typeof messageId !== "string") || (!absent(delta) && typeof delta !== "string")) {
      throw new Error("a malformed TEXT_MESSAGE_CHUNK: messageId or delta is not a string");
    }
    let id = this.continues("text", messageId);
    if (id === null) {
      if (absent(messageId)) {
        log.debug("a TEXT_MESSAGE_CHUNK without messageId, and no chunked message is open to continue");
        return;
      }
      id = messageId;
      this.chunk = { kind: "text", id: messageId };
      this.open(messageId, event.role);
    }
    if (typeof delta === "string") this.run.text(/** @type {string} */ (id), delta);
  }

  closeChunk() {
    const chunk = this.chunk;
    this.chunk = null;
    if (chunk && chunk.kind === "text") this.run.closed(chunk.id);
  }

  /** @param {unknown} messages */
  snapshot(messages) {
    if (!Array.isArray(messages)) {
      this.run.snapshot([]);
      return;
    }
    /** @type {Array<{ id: string, role: string, content: unknown }>} */
    const shown = [];
    for (const message of messages) {
      if (!isPlainObject(message) || typeof message.id !== "string" || typeof message.role !== "string") continue;
      this.roles.set(message.id, message.role); // a snapshot replaces the message, role included
      for (const call of Array.isArray(message.toolCalls) ? message.toolCalls : []) {
        const name = isPlainObject(call) && isPlainObject(call.function) ? call.function.name : undefined;
        if (typeof call?.id === "string" && typeof name === "string") this.run.tools.set(call.id, name);
      }
      shown.push({ id: message.id, role: message.role, content: message.content });
    }
    this.run.snapshot(shown);
  }
}

/** A message event's id; throws for one that is no string. @param {AnyEvent} event */
function messageIdOf(event) {
  if (typeof event.messageId !== "string") {
    throw new Error(`a malformed ${event.type}: messageId is ${typeof event.messageId}, not a string`);
  }
  return event.messageId;
}

/** A copy of `snapshot` whose messages named in `values` carry their value on `metadata`.
 * @param {AnyEvent} snapshot @param {Map<string, object>} values */
function withCitations(snapshot, values) {
  if (!values.size || !Array.isArray(snapshot.messages)) return snapshot;
  const messages = snapshot.messages.map((/** @type {any} */ message) => {
    const value = message && message.role === "assistant" ? values.get(message.id) : undefined;
    if (value === undefined) return message;
    const metadata = message.metadata;
    if (metadata !== undefined && metadata !== null &&
        (typeof metadata !== "object" || Array.isArray(metadata))) return message;
    return { ...message, metadata: { ...(metadata ?? {}), [METADATA_KEY]: value } };
  });
  return { ...snapshot, messages };
}

// -- one run: the ledger of what the model was shown, the answers, the events ----------------

/**
 * @typedef {{ ref: string, span: [number, number] | null }} Entry
 * @typedef {{ record: any, capturedAt: Date, source: string }} Held
 * @typedef {{ entry: Entry, key: string, records: Held[], compact: boolean, earlier: boolean }} Seen
 * @typedef {{ entry: Entry, record: any | null, compact: boolean }} Item
 * @typedef {{ callId: string | null, arrival: number, capturedAt: Date, source: string, items: Item[] }} Result
 * @typedef {{ record: any, capturedAt: Date, span: [number, number] | null }} Found
 * @typedef {{ record: any, marker: string | null, capturedAt: Date }} Citation
 */

/** @param {Entry} entry */
const keyOf = (entry) => (entry.span ? `${entry.span[0]}:${entry.span[1]} ${entry.ref}` : ` ${entry.ref}`);

/** The entry a record-shaped value names, or null. @param {unknown} item @returns {Entry | null} */
function entryOf(item) {
  if (!isPlainObject(item)) return null;
  const node = /** @type {any} */ (item).node;
  const ref = isPlainObject(node) ? node.ref : undefined;
  if (typeof ref !== "string" || !ref) return null;
  const span = /** @type {any} */ (item).span;
  if (isPlainObject(span) && Number.isInteger(span.start) && Number.isInteger(span.end)) {
    return { ref, span: [span.start, span.end] };
  }
  return { ref, span: null };
}

/** @param {unknown} value @returns {value is Record<string, any>} */
const isPlainObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

export class CitationRun {
  /** @param {Options} options */
  constructor(options) {
    this.options = options;
    /** @type {Map<string, number>} call id -> its place in the order the model issued it */
    this.calls = new Map();
    /** @type {Map<string, string>} call id -> tool name */
    this.tools = new Map();
    /** @type {Result[]} in arrival order */
    this.results = [];
    /** @type {Array<{ entry: Entry, marker: string | null }>} the thread's, in the model's order */
    this.earlier = [];
    /** @type {Array<{ known: boolean, results: Entry[][] }>} the thread's turns */
    this.turns = [];
    /** @type {Map<string, string>} entry key -> the marker the model was shown */
    this.shown = new Map();
    /** @type {Map<string, Entry>} marker -> the entry last shown it */
    this.byMarker = new Map();
    this.threadRead = true;
    this.counted = true;
    this.questionId = /** @type {string | null} */ (null);
    /** @type {Promise<void> | null} the kept thread, while it is being read */
    this.threadReading = null;
    /** @type {Map<string, string>} message id -> its text, in the order their text began */
    this.texts = new Map();
    /** @type {Set<string>} messages not to cite: other roles, cited upstream, left out */
    this.muted = new Set();
    /** @type {Set<string>} messages whose event was made */
    this.sent = new Set();
    /** @type {Set<string>} */
    this.open = new Set();
    /** @type {string[]} answers the snapshot just read carries the sources of */
    this.carried = [];
    /** @type {Map<string, Found | null | Promise<void>>} ref -> what lookup found */
    this.lookups = new Map();
    this.lookupStarted = 0;
    this.active = 0;
    /** @type {Array<() => void>} */
    this.slots = [];
    this.deadline = 0;
    /** @type {Set<string>} */
    this.told = new Set();
    /** @type {Map<string, string>} ref -> the tool whose compact result named it */
    this.compactTools = new Map();
    /** @type {Map<string, { text: string, value: any }>} message id -> its event's value */
    this.made = new Map();
    this.ended = false;
  }

  /** The run after this one in the same stream (a new RUN_STARTED), with the same options;
   * after a run that named sources its model reads that run's turn too, which the new run
   * does not hold: it fails closed. */
  renewed() {
    this.endLookups();
    const next = new CitationRun(this.options);
    if (this.results.length > 0 || this.earlier.length > 0) {
      next.threadUnread("a second run in the same stream, after a run that named sources");
    }
    return next;
  }

  /** @param {string} tool */
  isReader(tool) {
    if (typeof tool !== "string") return false;
    if (this.options.readerTools.has(tool)) return true;
    if (!tool.startsWith(MCP_PREFIX)) return false;
    const rest = tool.slice(MCP_PREFIX.length);
    const split = rest.indexOf("__");
    return split !== -1 && this.options.readerTools.has(rest.slice(split + 2));
  }

  // -- the thread -----------------------------------------------------------------------------

  /** Take in the thread the model reads: the request's (`RunAgentInput.messages`), or, with
   * `keptThread`, the one the agent keeps, then the request's messages it does not hold. Its
   * Reader results come first, in the order the model read them. @param {unknown} input */
  readInput(input) {
    const messages = isPlainObject(input) ? input.messages : undefined;
    if (Array.isArray(messages)) {
      const questions = messages.filter((m) => isPlainObject(m) && m.role === "user");
      const last = questions[questions.length - 1];
      this.questionId = last && typeof last.id === "string" ? last.id : null;
    }
    const keptThread = this.options.keptThread;
    if (keptThread === null) {
      this.readThread(messages);
      return;
    }
    const failed = (/** @type {unknown} */ error) =>
      this.threadUnread(`keptThread failed: ${error instanceof Error ? error.message : error}`);
    const take = (/** @type {unknown} */ kept) => {
      if (kept === null || kept === undefined) {
        this.threadUnread("keptThread does not know the thread the agent reads");
      } else if (!Array.isArray(kept)) {
        this.threadUnread("keptThread gave no list of messages");
      } else {
        this.readThread(keptThenSent(kept, Array.isArray(messages) ? messages : []));
      }
    };
    try {
      const kept = keptThread(input);
      if (isPlainObject(kept) && typeof kept.then === "function") {
        this.threadReading = Promise.resolve(kept).then(take, failed).finally(() => {
          this.threadReading = null;
        });
      } else {
        take(kept);
      }
    } catch (error) {
      failed(error);
    }
  }

  /** @param {unknown} messages */
  readThread(messages) {
    if (messages === undefined) return;
    if (!Array.isArray(messages)) {
      this.threadUnread("its messages is not a list");
      return;
    }
    let results;
    try {
      results = earlierResults(messages, (name) => this.isReader(name));
    } catch (error) {
      this.threadUnread(String(error instanceof Error ? error.message : error));
      return;
    }
    for (const result of results) {
      try {
        this.addEarlier(result);
      } catch (error) {
        this.threadUnread(`a result of ${result.tool}: ${error instanceof Error ? error.message : error}`);
        return;
      }
    }
  }

  /** @param {string} why */
  threadUnread(why) {
    if (!this.threadRead) return;
    this.threadRead = false;
    log.warn(`the thread was not read: ${why}; which source a marker names is not known, ` +
      "so markers are left out (versioned refs are cited)");
  }

  /** @param {EarlierResult} result */
  addEarlier(result) {
    if (!this.isReader(result.tool)) return;
    const content = readFast(result.content);
    const view = numberedView(content) ?? [[null, content]];
    /** @type {Array<{ entry: Entry, marker: string | null }>} */
    const entries = [];
    for (const [marker, shownValue] of view) {
      let items;
      try {
        items = readerItems(shownValue);
      } catch (error) {
        if (!isProse(shownValue)) throw error;
        continue;
      }
      for (const item of items) {
        const entry = "compactRef" in item ? { ref: item.compactRef, span: null } : entryOf(item.record);
        if (entry) entries.push({ entry, marker });
      }
    }
    let turn = this.turns[result.turn];
    if (!turn) turn = this.turns[result.turn] = { known: result.known, results: [] };
    turn.known = turn.known && result.known;
    turn.results.push(entries.map((e) => e.entry));
    for (const { entry, marker } of entries) {
      this.earlier.push({ entry, marker });
      const key = keyOf(entry);
      if (marker !== null && !this.shown.has(key)) {
        this.shown.set(key, marker);
        this.byMarker.set(marker, entry);
      }
    }
  }

  // -- this run's events ----------------------------------------------------------------------

  /** @param {unknown} callId @param {unknown} tool */
  callMade(callId, tool) {
    if (typeof callId !== "string") return;
    if (!this.calls.has(callId)) this.calls.set(callId, this.calls.size);
    if (typeof tool === "string") this.tools.set(callId, tool);
  }

  /** @param {unknown} callId @param {unknown} content */
  result(callId, content) {
    const tool = typeof callId === "string" ? this.tools.get(callId) : undefined;
    if (tool === undefined) {
      log.debug(`result of unknown tool call ${String(callId)} ignored`);
      return;
    }
    if (!this.isReader(tool)) return;
    let items;
    try {
      items = readerItems(content);
    } catch (error) {
      log.warn(`skipped a result of ${tool}: ${error instanceof Error ? error.message : error}`);
      this.counted = false;
      return;
    }
    /** @type {Item[]} */
    const kept = [];
    for (const item of items) {
      if ("compactRef" in item) {
        if (!this.compactTools.has(item.compactRef)) this.compactTools.set(item.compactRef, tool);
        kept.push({ entry: { ref: item.compactRef, span: null }, record: null, compact: true });
        continue;
      }
      const entry = entryOf(item.record);
      if (entry === null) {
        this.accept(tool, item.record); // says why it is not a record
        continue;
      }
      kept.push({ entry, record: item.record, compact: false });
    }
    if (kept.length) {
      this.results.push({ callId: /** @type {string} */ (callId), arrival: this.results.length,
        capturedAt: new Date(), source: tool, items: kept });
    }
  }

  /** @param {string} id @param {string} role */
  opened(id, role) {
    if (role !== "assistant") this.muted.add(id);
    this.open.add(id);
  }

  /** @param {string} id @param {string} delta */
  text(id, delta) {
    if (delta) this.texts.set(id, (this.texts.get(id) ?? "") + delta);
  }

  /** @param {string} id */
  closed(id) {
    this.open.delete(id);
  }

  /** @param {string} id */
  mute(id) {
    this.muted.add(id);
  }

  /** Ids of the messages with text, in the order their text began. */
  withText() {
    return [...this.texts].filter(([, text]) => text.trim()).map(([id]) => id);
  }

  /** The messages with text that are cited (their event made or not). */
  citable() {
    return this.withText().filter((id) => !this.muted.has(id));
  }

  /** The messages to cite now, each once. */
  toCite() {
    const due = this.citable().filter((id) => !this.sent.has(id));
    for (const id of due) this.sent.add(id);
    return due;
  }

  /**
   * A MESSAGES_SNAPSHOT replaces the client's messages: answers it renamed take their new
   * ids, those it left out are cited no more, an answer after the question that only the
   * snapshot carries is this run's; the ended answers it holds carry their sources.
   * @param {Array<{ id: string, role: string, content: unknown }>} messages
   */
  snapshot(messages) {
    /** @type {Array<[string, unknown]>} */
    const answers = [];
    /** @type {Set<string> | null} */
    let afterQuestion = null;
    for (const { id, role, content } of messages) {
      if (role === "user" && id === this.questionId) afterQuestion = new Set();
      else if (role === "assistant") {
        answers.push([id, content]);
        if (afterQuestion) afterQuestion.add(id);
      }
    }
    const ids = new Set(answers.map(([id]) => id));
    for (const [old, renamed] of this.renames(answers, ids)) {
      log.debug(`the snapshot names message ${old} ${renamed}`);
      this.rename(old, renamed);
    }
    for (const [id, content] of answers) {
      if (typeof content === "string" && content.trim() && !this.texts.get(id) && afterQuestion?.has(id)) {
        this.text(id, content);
      }
    }
    for (const id of this.withText()) {
      if (!ids.has(id)) {
        if (!this.muted.has(id)) log.debug(`message ${id} is not in the snapshot; not cited`);
        this.muted.add(id);
      }
    }
    this.carried = this.citable().filter((id) => ids.has(id) && !this.open.has(id));
  }

  /** (old id, snapshot id) of each ended answer the snapshot names otherwise: the same whole
   * text, one answer it dropped, one message the run has no text of.
   * @param {Array<[string, unknown]>} answers @param {Set<string>} ids @returns {Array<[string, string]>} */
  renames(answers, ids) {
    /** @type {Map<string, string[]>} */
    const dropped = new Map();
    for (const id of this.withText()) {
      if (!ids.has(id) && !this.open.has(id)) {
        const text = /** @type {string} */ (this.texts.get(id)).trim();
        dropped.set(text, [...(dropped.get(text) ?? []), id]);
      }
    }
    if (!dropped.size) return [];
    /** @type {Map<string, string[]>} */
    const named = new Map();
    for (const [id, content] of answers) {
      const text = typeof content === "string" ? content.trim() : null;
      if (text !== null && dropped.has(text) && !this.texts.get(id)) {
        named.set(text, [...(named.get(text) ?? []), id]);
      }
    }
    return [...named].filter(([text, fresh]) => fresh.length === 1 && dropped.get(text)?.length === 1)
      .map(([text, fresh]) => [/** @type {string[]} */ (dropped.get(text))[0], fresh[0]]);
  }

  /** The message `old` is now `renamed`: its text, place, and whether it is muted or cited
   * go with it. @param {string} old @param {string} renamed */
  rename(old, renamed) {
    this.texts = new Map([...this.texts].map(([id, text]) => [id === old ? renamed : id, text]));
    for (const ids of [this.muted, this.sent]) {
      if (ids.delete(old)) ids.add(renamed);
    }
    this.made.delete(old);
  }

  // -- the ledger -----------------------------------------------------------------------------

  /** Every entry once, in the model's order: the thread's, then this run's results in the
   * order the model issued their calls (results of no announced call after, as they came). */
  entries() {
    /** @type {Map<string, Seen>} */
    const seen = new Map();
    for (const { entry } of this.earlier) {
      const key = keyOf(entry);
      if (!seen.has(key)) seen.set(key, { entry, key, records: [], compact: false, earlier: true });
    }
    for (const result of this.inModelOrder()) {
      for (const item of result.items) {
        const key = keyOf(item.entry);
        let known = seen.get(key);
        if (!known) {
          known = { entry: item.entry, key, records: [], compact: item.compact, earlier: false };
          seen.set(key, known);
        } else {
          known.compact = known.compact || item.compact;
        }
        if (item.record !== null) {
          known.records.push({ record: item.record, capturedAt: result.capturedAt, source: result.source });
        }
      }
    }
    return seen;
  }

  inModelOrder() {
    const unannounced = this.calls.size;
    const place = (/** @type {Result} */ r) => (r.callId === null ? unannounced : this.calls.get(r.callId) ?? unannounced);
    return [...this.results].sort((a, b) => place(a) - place(b) || a.arrival - b.arrival);
  }

  /** The entries whose place depends on an order no one knows (a turn of the thread whose
   * results it lists out of their calls' order). @param {Seen[]} order */
  unsure(order) {
    if (this.turns.every((turn) => !turn || turn.known)) return new Set();
    /** @type {Set<string>} */
    const placed = new Set();
    /** @type {Set<string>} */
    const unsure = new Set();
    const turns = [...this.turns.filter(Boolean),
      { known: true, results: this.inModelOrder().map((r) => r.items.map((i) => i.entry)) }];
    for (const turn of turns) {
      const results = turn.results.map((result) => result.map(keyOf));
      if (turn.known) {
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
        for (const result of results) for (const key of result) if (!placed.has(key)) unsure.add(key);
        for (const result of results) for (const key of result) placed.add(key);
        break;
      }
    }
    void order;
    return unsure;
  }

  // -- resolution ------------------------------------------------------------------------------

  /** The event of each answer due, in the order the answers began; a Promise while lookups run.
   * @returns {AnyEvent[] | Promise<AnyEvent[]>} */
  due() {
    const ids = this.toCite();
    const values = this.values(ids, true);
    const events = (/** @type {Map<string, object>} */ found) => ids.filter((id) => found.has(id))
      .map((id) => ({ type: "CUSTOM", name: EVENT_NAME, value: found.get(id) }));
    if (values instanceof Promise) return values.then(events).finally(() => this.endLookups());
    this.endLookups();
    return events(values);
  }

  /** The value each of `ids` has in its event, as its text stands now (made once per text).
   * @param {string[]} ids @param {boolean} [final] @returns {Map<string, object> | Promise<Map<string, object>>} */
  values(ids, final = false) {
    const reading = this.threadReading;
    if (reading) return reading.then(() => this.values(ids, final));
    const context = this.context();
    /** @type {Array<[string, ReturnType<CitationRun["mentioned"]>]>} */
    const wanted = [];
    /** @type {string[]} */
    const refs = [];
    for (const id of ids) {
      const text = this.texts.get(id) ?? "";
      if (this.made.get(id)?.text === text) continue;
      const first = this.mentioned(text, context, final);
      wanted.push([id, first]);
      refs.push(...this.toLookUp(first, context));
    }
    const finish = () => {
      /** @type {Map<string, object>} */
      const found = new Map();
      for (const [id, first] of wanted) {
        const text = this.texts.get(id) ?? "";
        this.made.set(id, { text, value: this.value(id, this.citations(first, context)) });
      }
      for (const id of ids) {
        const made = this.made.get(id);
        if (made) found.set(id, made.value);
      }
      return found;
    };
    const pending = this.lookUp(refs);
    return pending ? pending.then(finish) : finish();
  }

  /** What resolution reads, for the ledger as it stands. */
  context() {
    const seen = this.entries();
    const order = [...seen.values()];
    /** @type {Map<string, Seen[]>} */
    const byRef = new Map();
    for (const s of order) byRef.set(s.entry.ref, [...(byRef.get(s.entry.ref) ?? []), s]);
    const blind = !this.threadRead || !(this.shown.size > 0 || this.counted);
    return { seen, order, byRef, blind, unsure: this.unsure(order), checked: new Map() };
  }

  /**
   * The entries `text` names, in order of first mention, each with its marker (null: named
   * by its versioned ref).
   * @param {string} text @param {ReturnType<CitationRun["context"]>} context @param {boolean} report
   * @returns {Map<string, { seen: Seen, marker: string | null }>}
   */
  mentioned(text, context, report) {
    /** @type {Array<{ start: number, ref: string, seen: Seen, marker: string | null }>} */
    const mentions = [];
    for (const [start, ref] of findRefs(text, context.byRef)) {
      mentions.push({ start, ref, seen: this.named(ref, context), marker: null });
    }
    if (!context.blind) {
      /** @type {Set<string>} */
      const unsureMarkers = new Set();
      for (const { start, marker } of markersIn(text)) {
        const entry = this.entryOfMarker(marker, context);
        if (!entry) continue;
        const key = keyOf(entry);
        if (context.unsure.has(key) && this.shown.get(key) !== marker) {
          unsureMarkers.add(marker);
          continue;
        }
        const seen = /** @type {Seen} */ (context.seen.get(key));
        mentions.push({ start, ref: entry.ref, seen, marker });
      }
      if (report) {
        for (const marker of unsureMarkers) {
          log.warn(`left out the marker ${marker}: the thread lists Reader results out of their ` +
            "calls' order, so which source the model numbered so is not known");
        }
      }
    }
    mentions.sort((a, b) => a.start - b.start);
    /** @type {Map<string, { seen: Seen, marker: string | null }>} */
    const first = new Map();
    for (const { seen, marker } of mentions) {
      const had = first.get(seen.key);
      if (!had || (had.marker === null && marker)) first.set(seen.key, { seen, marker });
    }
    return first;
  }

  /** The entry a marker names, if the run holds it. @param {string} marker
   * @param {ReturnType<CitationRun["context"]>} context @returns {Entry | null} */
  entryOfMarker(marker, context) {
    if (this.shown.size) return this.byMarker.get(marker) ?? null;
    const number = markerNumber(marker);
    return number !== null && number <= context.order.length ? context.order[number - 1].entry : null;
  }

  /** The entry a versioned ref cites: the node's first entry with a valid whole-node record,
   * else its first entry. @param {string} ref @param {ReturnType<CitationRun["context"]>} context */
  named(ref, context) {
    const entries = /** @type {Seen[]} */ (context.byRef.get(ref));
    return entries.find((s) => this.isWhole(s, context)) ?? entries[0];
  }

  /** @param {Seen} seen @param {ReturnType<CitationRun["context"]>} context */
  isWhole(seen, context) {
    return seen.entry.span === null && this.recordOf(seen, context) !== null;
  }

  /** An entry's first valid record of a loaded package. @param {Seen} seen
   * @param {ReturnType<CitationRun["context"]>} context @returns {Found | null} */
  recordOf(seen, context) {
    for (const held of seen.records) {
      let ok = context.checked.get(held.record);
      if (ok === undefined) {
        ok = this.accept(held.source, held.record);
        context.checked.set(held.record, ok);
      }
      if (ok) return { record: held.record, capturedAt: held.capturedAt, span: seen.entry.span };
    }
    return null;
  }

  /** Whether `record` may be sent: valid, of a loaded package (else logged).
   * @param {string} source @param {unknown} record */
  accept(source, record) {
    const problem = recordProblem(record);
    if (problem) {
      log.warn(`skipped an invalid record from ${source}: ${problem}`);
      return false;
    }
    const packages = this.options.packages;
    const pkg = /** @type {any} */ (record).package;
    if (packages !== null && !packages.has(pkg.digest)) {
      log.warn(`skipped a record of package ${pkg.id}: its digest ${pkg.digest} is not in \`packages\``);
      return false;
    }
    return true;
  }

  /** @param {Map<string, { seen: Seen, marker: string | null }>} first
   * @param {ReturnType<CitationRun["context"]>} context */
  toLookUp(first, context) {
    /** @type {string[]} */
    const refs = [];
    for (const { seen } of first.values()) {
      if ((seen.compact || seen.earlier) && this.recordOf(seen, context) === null &&
          this.whole(seen.entry.ref, context) === null) refs.push(seen.entry.ref);
    }
    return refs;
  }

  /** @param {string} ref @param {ReturnType<CitationRun["context"]>} context */
  whole(ref, context) {
    const named = this.named(ref, context);
    return named.entry.span === null ? this.recordOf(named, context) : null;
  }

  /** The citations of the entries `first` names: one per node and span, each with the record
   * the run holds for it. @param {Map<string, { seen: Seen, marker: string | null }>} first
   * @param {ReturnType<CitationRun["context"]>} context @returns {Citation[]} */
  citations(first, context) {
    /** @type {Citation[]} */
    const citations = [];
    /** @type {Map<string, Citation>} */
    const byKey = new Map();
    for (const { seen, marker } of first.values()) {
      const found = this.foundFor(seen, context);
      if (!found) continue;
      const key = keyOf({ ref: seen.entry.ref, span: found.span });
      const had = byKey.get(key);
      if (!had) {
        const citation = { record: found.record, marker, capturedAt: found.capturedAt };
        byKey.set(key, citation);
        citations.push(citation);
      } else if (had.marker === null && marker) {
        had.marker = marker;
      }
    }
    return citations;
  }

  /** @param {Seen} seen @param {ReturnType<CitationRun["context"]>} context @returns {Found | null} */
  foundFor(seen, context) {
    const own = this.recordOf(seen, context);
    if (own) return own;
    const ref = seen.entry.ref;
    const whole = this.whole(ref, context);
    if (whole) return whole;
    if (!seen.compact && !seen.earlier) return null;
    const looked = this.lookups.get(ref);
    if (looked && !(looked instanceof Promise)) return looked;
    for (const other of context.byRef.get(ref) ?? []) {
      const found = this.recordOf(other, context);
      if (found) return found;
    }
    if (this.options.lookup === null && !this.told.has(ref)) {
      this.told.add(ref);
      const tool = this.compactTools.get(ref);
      if (seen.earlier && tool === undefined) {
        log.warn(`left out ${ref}: it was read in an earlier turn, and the thread's records are ` +
          "not trusted; to cite follow-up answers, pass lookup: <ref -> record>");
      } else {
        log.warn(`left out ${ref}: ${tool ?? "the Reader tool"} returned a compact result, not a ` +
          `citation record; call it with detail: "full", or pass lookup: <ref -> record>`);
      }
    }
    return null;
  }

  /** @param {string} id @param {Citation[]} citations */
  value(id, citations) {
    const entries = citations.map((citation) => {
      let record = citation.record;
      if (!this.options.includeText && "text" in record) record = withoutText(record);
      return citation.marker ? { marker: citation.marker, record } : { record };
    });
    /** @type {Record<string, unknown>} */
    const value = { version: EVENT_VERSION, messageId: id };
    if (citations.length) {
      const earliest = Math.min(...citations.map((c) => c.capturedAt.getTime()));
      value.computedAt = new Date(earliest).toISOString();
    }
    value.citations = entries;
    fit(value, entries, this.options.maxEventBytes);
    return value;
  }

  // -- lookups ---------------------------------------------------------------------------------

  /** Ask `lookup` for each of `refs` not asked yet, together; null if nothing waits.
   * @param {string[]} refs @returns {Promise<void> | null} */
  lookUp(refs) {
    const lookup = this.options.lookup;
    if (lookup === null || !refs.length) return null;
    /** @type {Promise<void>[]} */
    const waiting = [];
    for (const ref of new Set(refs)) {
      const had = this.lookups.get(ref);
      if (had instanceof Promise) waiting.push(had);
      if (had !== undefined) continue;
      if (this.lookupStarted >= this.options.maxLookups) {
        this.tell("maxLookups", `left out ${ref} and every further source only a lookup could give ` +
          `a record of: this run looked up maxLookups=${this.options.maxLookups} nodes`);
        continue;
      }
      if (this.lookupStarted === 0) this.deadline = Date.now() + this.options.lookupDeadline * 1000;
      this.lookupStarted += 1;
      const asked = this.ask(lookup, ref).then((found) => {
        this.lookups.set(ref, found);
      });
      this.lookups.set(ref, asked);
      waiting.push(asked);
    }
    return waiting.length ? Promise.all(waiting).then(() => undefined) : null;
  }

  /** @param {(ref: string) => unknown} lookup @param {string} ref @returns {Promise<Found | null>} */
  async ask(lookup, ref) {
    const left = this.deadline - Date.now();
    const timeout = Math.min(this.options.lookupTimeout * 1000, Math.max(0, left));
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    const late = new Promise((resolve) => {
      timer = setTimeout(() => resolve(late), timeout);
    });
    try {
      await this.slot(late);
      if (this.ended) return null;
      const answer = await Promise.race([Promise.resolve().then(() => lookup(ref)), late]);
      if (answer === late) {
        if (Date.now() >= this.deadline) {
          this.tell("lookupDeadline", `left out ${ref} and every source still being looked up ` +
            `lookupDeadline=${this.options.lookupDeadline} seconds after this run's first lookup`);
        } else log.warn(`left out ${ref}: lookup failed (timed out)`);
        return null;
      }
      if (answer === null || answer === undefined) {
        log.debug(`left out ${ref}: lookup found no record`);
        return null;
      }
      const record = plainCopy(answer);
      if (record === null || !this.accept("lookup", record)) return null;
      const entry = entryOf(record);
      if (!entry || entry.ref !== ref) {
        log.warn(`left out ${ref}: lookup returned another node`);
        return null;
      }
      return { record, capturedAt: new Date(), span: entry.span };
    } catch (error) {
      log.warn(`left out ${ref}: lookup failed`, error);
      return null;
    } finally {
      clearTimeout(timer);
      this.release();
    }
  }

  /** Wait for a place among `lookupConcurrency` running lookups. @param {Promise<unknown>} late */
  slot(late) {
    if (this.active < this.options.lookupConcurrency) {
      this.active += 1;
      return Promise.resolve();
    }
    return Promise.race([new Promise((resolve) => this.slots.push(() => resolve(undefined))),
      late.then(() => { throw new Error("timed out waiting for a place"); })]).then(() => {
      this.active += 1;
    });
  }

  release() {
    this.active = Math.max(0, this.active - 1);
    this.slots.shift()?.();
  }

  endLookups() {
    this.ended = true;
  }

  /** @param {string} bound @param {string} message */
  tell(bound, message) {
    if (!this.told.has(bound)) {
      this.told.add(bound);
      log.warn(message);
    }
  }
}

/** @param {Record<string, unknown>} record */
function withoutText(record) {
  const { text, ...rest } = record;
  void text;
  return rest;
}

/** A copy of `value` as plain JSON, or null (logged) if it is none. @param {unknown} value */
function plainCopy(value) {
  try {
    const copy = JSON.parse(JSON.stringify(value));
    return isPlainObject(copy) ? copy : null;
  } catch (error) {
    log.warn(`skipped a record from lookup: not plain JSON: ${error instanceof Error ? error.message : error}`);
    return null;
  }
}

const encoder = new TextEncoder();
/** @param {unknown} value */
const size = (value) => encoder.encode(JSON.stringify(value)).length;

/** Drop `text` from the largest records first until the event's JSON fits `budget`.
 * @param {Record<string, unknown>} value @param {Array<{ record: any }>} entries @param {number} budget */
function fit(value, entries, budget) {
  let total = size(value);
  if (total <= budget) return;
  const sized = entries.filter((entry) => "text" in entry.record)
    .map((entry) => /** @type {[number, { record: any }]} */ ([size(entry.record), entry]))
    .sort((a, b) => b[0] - a[0]);
  for (const [bytes, entry] of sized) {
    entry.record = withoutText(entry.record);
    total -= bytes - size(entry.record);
    if (total <= budget) return;
  }
  log.warn(`the event for ${String(value.messageId)} is ${total} bytes with every text dropped, ` +
    `over maxEventBytes=${budget}; it is sent whole, as records may not be cut`);
}

/** n if `marker` is `[n]` as the numbering writes it (no leading 0, at most 9 digits).
 * @param {string} marker */
function markerNumber(marker) {
  const inner = /^\[([1-9][0-9]{0,8})\]$/.exec(marker);
  return inner ? Number(inner[1]) : null;
}

/** Each marker `text` shows as text, in order: the one place the marker syntax is read.
 * @param {string} text */
function markersIn(text) {
  return shownMarkers(text);
}

// -- versioned refs (moca_agui.records.references.find_refs) ----------------------------------

const DELIMITERS = "\\s<>()\\[\\]{}\"'`|\u201c\u201d\u201e\u201f\u2018\u2019\u201a\u201b" +
  "\u00ab\u00bb\u2039\u203a\uff08\uff09\uff3b\uff3d\uff5b\uff5d" +
  "\u300c\u300d\u300e\u300f\u3010\u3011\u3008\u3009\u300a\u300b\u3014\u3015";
const RUN = new RegExp(`[^${DELIMITERS}]+`, "gu");
const EDGE_MARKUP = "*_~";
const TRIMMABLE = /^[\p{P}*_~]$/u;

/** [start, ref] of each mention of a ref in `known`. @param {string} text
 * @param {Map<string, unknown>} known @returns {Array<[number, string]>} */
function findRefs(text, known) {
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

// -- what a Reader result holds (moca_agui.records.extract) -----------------------------------

/** @typedef {{ record: Record<string, unknown> } | { compactRef: string }} ReaderItem */

/** The records and compact results in one Reader tool result, in the order given; throws
 * for one it cannot read (malformed JSON, too long). @param {unknown} result @returns {ReaderItem[]} */
export function readerItems(result) {
  /** @type {ReaderItem[]} */
  const items = [];
  collect(result, items, 0);
  return items;
}

/** @param {string} text */
function parseJson(text) {
  if (text.length > MAX_RESULT_CHARS) {
    throw new Error(`${text.length} characters, over the ${MAX_RESULT_CHARS} this layer parses`);
  }
  const value = JSON.parse(text);
  // As moca_agui reads it: parsers differ on which of two equal keys wins, and a number out of
  // a double's range is no plain JSON. Written back, the value has as many colons as the text
  // unless a key was dropped (a text escaping a colon as \u003a is taken as it reads), and a
  // `null` more for each number that overflowed.
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

/** @param {unknown} value @returns {boolean} */
const looksLikeRecord = (value) => isPlainObject(value) && "package" in value && "node" in value && "trust" in value;

/** @param {unknown} value @param {ReaderItem[]} items @param {number} depth */
function collect(value, items, depth) {
  if (depth > MAX_DEPTH) throw new Error("wrapped too deeply to be a Reader result");
  if (typeof value === "string") {
    if (MCP_ERROR.test(value)) {
      log.debug(`the Reader answered an error: ${value.slice(0, 200)}`);
      return;
    }
    collect(parseJson(value), items, depth + 1);
  } else if (Array.isArray(value)) {
    for (const entry of value) collectEntry(entry, items, depth);
  } else if (isPlainObject(value)) {
    collectMapping(value, items, depth);
  }
}

/** @param {Record<string, any>} value @param {ReaderItem[]} items @param {number} depth */
function collectMapping(value, items, depth) {
  const keys = Object.keys(value);
  if (looksLikeRecord(value)) items.push({ record: value });
  else if (value.isError === true) log.debug("the Reader answered an error");
  else if ("error" in value) log.debug(`the Reader answered an error: ${JSON.stringify(value.error).slice(0, 200)}`);
  else if (Array.isArray(value.results)) collect(value.results, items, depth + 1);
  else if ("op" in value && "result" in value) {
    if (Array.isArray(value.result)) collect(value.result, items, depth + 1);
  } else if (Array.isArray(value.content)) collect(value.content, items, depth + 1);
  else if (keys.length === 1 && keys[0] === "result") collect(value.result, items, depth + 1);
  else if (isNumbered(value)) log.debug("a numbered result: read where the thread shows it");
  else if (typeof value.ref === "string" && value.ref && !("node" in value) && !("package" in value)) {
    items.push({ compactRef: value.ref });
  } else if (isPlainObject(value.metadata) && "moca_citation" in value.metadata) {
    let citation = value.metadata.moca_citation;
    if (typeof citation === "string") citation = parseJson(citation);
    if (looksLikeRecord(citation)) items.push({ record: citation });
  }
}

/** @param {unknown} entry @param {ReaderItem[]} items @param {number} depth */
function collectEntry(entry, items, depth) {
  if (looksLikeRecord(entry)) items.push({ record: /** @type {Record<string, unknown>} */ (entry) });
  else if (isPlainObject(entry)) {
    if (entry.type === "text" && typeof entry.text === "string") collect(entry.text, items, depth + 1);
    else if (isNumbered(entry)) log.debug("a numbered result: read where the thread shows it");
    else collectMapping(entry, items, depth + 1);
  }
}

/** An entry of what a numbered Reader tool showed the model. @param {Record<string, unknown>} value */
const isNumbered = (value) => "result" in value && Object.keys(value).every((k) => k === "marker" || k === "result");

/** Each entry of a numbered result: its marker (null: none) and the Reader's result beside it;
 * null if `value` is not one. @param {unknown} value @returns {Array<[string | null, unknown]> | null} */
function numberedView(value) {
  const entries = isPlainObject(value) ? value.results : undefined;
  if (!Array.isArray(entries) || !entries.length) return null;
  if (!entries.every((entry) => isPlainObject(entry) && isNumbered(entry))) return null;
  return entries.map((entry) => [typeof entry.marker === "string" ? entry.marker : null, entry.result]);
}

/** An earlier result's JSON text as a value (one text part is its text); else as it is.
 * @param {unknown} content */
function readFast(content) {
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
const isProse = (shownValue) => typeof shownValue === "string" && shownValue.length <= MAX_RESULT_CHARS &&
  !/^\s*[{[]/.test(shownValue);

// -- the thread's tool results (moca_agui.records.history) ------------------------------------

/** @typedef {{ tool: string, callId: string, content: unknown, turn: number, known: boolean }} EarlierResult */

/**
 * Each tool result of `messages`, in the order the model issued the calls; the turns of
 * Reader results the thread lists out of their calls' order are one turn, order not known.
 * Throws for an item that is no message.
 * @param {unknown[]} messages @param {(name: string) => boolean} counts @returns {EarlierResult[]}
 */
function earlierResults(messages, counts) {
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
function keptThenSent(kept, sent) {
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
