// One subscription's stream: every event sent on as it came, in order, held only while the
// run's citations (before RUN_FINISHED) or a snapshot's wait for their lookups; followed as
// @ag-ui/client applies it (moca_agui.stream.follow).
import { EVENT_NAME, METADATA_KEY } from "../index.js";
import { isPlainObject } from "./json.js";
import { CitationRun } from "./run.js";

/**
 * @typedef {import("./options.js").Options} Options
 * @typedef {{ type: string, [field: string]: any }} AnyEvent
 */

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
  /** @param {Options} options @param {unknown} input @param {(event: AnyEvent) => void} emit
   * @param {Promise<boolean> | null} [ownThread] whether the agent reads a thread of its own */
  constructor(options, input, emit, ownThread = null) {
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
      this.run.readInput(input, ownThread);
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
    this.run.lookups.end();
    this.emit = () => {};
  }

  /** @param {unknown} error */
  fail(error) {
    if (this.alive) this.run.log.warn("citations off for this run; the answer is unchanged", error);
    this.alive = false;
    this.run.lookups.end();
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
        this.run.log.warn("the snapshot carries no citations; sent as it came", error);
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
      this.run.log.warn("no citations sent for this run; the answer is unchanged", error);
    try {
      for (const messageId of this.run.open) {
        this.run.log.warn(`message ${messageId} never ended; no citations for it`);
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
            this.run.log.warn("a run began before the last one finished; no citations for the unfinished one");
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
        run.lookups.end();
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
        this.run.log.debug("a TEXT_MESSAGE_CHUNK without messageId, and no chunked message is open to continue");
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
      if (isPlainObject(message.metadata) && METADATA_KEY in message.metadata) {
        this.run.mute(message.id); // cited upstream: its snapshot passes as it came
      }
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

/** A copy of `snapshot` whose messages named in `values` carry their value on `metadata`
 * (one that holds a value already keeps it).
 * @param {AnyEvent} snapshot @param {Map<string, object>} values */
function withCitations(snapshot, values) {
  if (!values.size || !Array.isArray(snapshot.messages)) return snapshot;
  const messages = snapshot.messages.map((/** @type {any} */ message) => {
    const value = message && message.role === "assistant" ? values.get(message.id) : undefined;
    if (value === undefined) return message;
    const metadata = message.metadata;
    if (metadata !== undefined && metadata !== null &&
        (typeof metadata !== "object" || Array.isArray(metadata))) return message;
    if (metadata && METADATA_KEY in metadata) return message; // cited upstream: never replaced
    return { ...message, metadata: { ...(metadata ?? {}), [METADATA_KEY]: value } };
  });
  return { ...snapshot, messages };
}

