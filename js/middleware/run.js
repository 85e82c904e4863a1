// One run (moca_agui.run): the ledger of what the model was shown, in the order it was shown
// them; the answers' text; which entries each answer names and the records cited for them.
import { EVENT_NAME, recordProblem } from "../index.js";
import { citationsValue } from "./event.js";
import { isPlainObject } from "./json.js";
import { Log, reason } from "./log.js";
import { Lookups } from "./lookups.js";
import { readFast, numberedView, readerItems, isProse } from "./reader.js";
import { findRefs, markersIn } from "./refs.js";
import { earlierResults, keptThenSent, unsure } from "./thread.js";

const MCP_PREFIX = "mcp__";
const OWN_THREAD = "the agent reads a thread of its own (a Mastra agent with memory), not the " +
  "request's; give it with the keptThread option";

/** @typedef {import("./options.js").Options} Options */
/** @typedef {import("./thread.js").EarlierResult} EarlierResult */
/** @typedef {{ type: string, [field: string]: any }} AnyEvent */

/**
 * @typedef {{ ref: string, span: [number, number] | null }} Entry
 * @typedef {{ record: any, capturedAt: Date, source: string }} Held
 * @typedef {{ entry: Entry, key: string, records: Held[], compact: boolean, earlier: boolean,
 *   arrival: number }} Seen the arrival: how many results had arrived before the first that
 *   holds it (-1: the thread's)
 * @typedef {{ entry: Entry, record: any | null, compact: boolean }} Item
 * @typedef {{ callId: string | null, arrival: number, capturedAt: Date, source: string, items: Item[] }} Result
 * @typedef {{ record: any, capturedAt: Date, span: [number, number] | null }} Found
 * @typedef {{ record: any, marker: string | null, capturedAt: Date }} Citation
 * @typedef {{ seen: Map<string, Seen>, order: Seen[], byRef: Map<string, Seen[]>, blind: boolean,
 *   unsure: Set<string>, checked: Map<unknown, boolean>, named: Map<string, Seen>,
 *   first: Map<string, Found | null>, results: number, earlier: number, last: Result | null,
 *   scanned: number, stale: boolean, latest: number, reach: number[], threadReach: number }} Context
 *   `results`, `earlier`: how many of the run's results and the thread's entries it holds;
 *   `last`: its last result in the model's order; `scanned`: how many of the run's results
 *   were compared with it; `stale`: one of them falls before it; `latest`: the last arrival
 *   among its results; `reach`: for the first k results in the model's order, how many
 *   entries they and the thread hold, or -1 where a result that arrived later than the first
 *   k comes among them; `threadReach`: how many entries the thread holds
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

export class CitationRun {
  /** @param {Options} options */
  constructor(options) {
    this.options = options;
    this.log = new Log(options.logger);
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
    /** @type {Map<string, Array<[number, number]>>} message id -> where each stretch of its
     * text begins and how many results had arrived when it (re)opened there */
    this.cuts = new Map();
    /** @type {Set<string>} messages not to cite: other roles, cited upstream, left out */
    this.muted = new Set();
    /** @type {Set<string>} messages whose event was made */
    this.sent = new Set();
    /** @type {Set<string>} */
    this.open = new Set();
    /** @type {string[]} answers the snapshot just read carries the sources of */
    this.carried = [];
    this.lookups = new Lookups(options, (source, record) => this.accept(source, record), entryOf);
    /** @type {Set<string>} the refs whose leaving out was logged */
    this.told = new Set();
    /** @type {Map<string, string>} ref -> the tool whose compact result named it */
    this.compactTools = new Map();
    /** @type {Map<string, { text: string, value: any }>} message id -> its event's value */
    this.made = new Map();
    /** @type {Context | null} what resolution reads, kept as the ledger grows */
    this.contextOf = null;
    /** How many entries this run's results hold, and how many making the context anew went through. */
    this.held = 0;
    this.remade = 0;
  }

  /** The run after this one in the same stream (a new RUN_STARTED), with the same options;
   * after a run that named sources its model reads that run's turn too, which the new run
   * does not hold: it fails closed. */
  renewed() {
    this.lookups.end();
    const next = new CitationRun(this.options);
    next.questionId = this.questionId;
    if (!this.threadRead || this.results.length > 0 || this.earlier.length > 0) {
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
   * Reader results come first, in the order the model read them. An agent that reads a
   * thread of its own no `keptThread` gives (`ownThread` resolves true): not known.
   * @param {unknown} input @param {Promise<boolean> | null} [ownThread] */
  readInput(input, ownThread = null) {
    const messages = isPlainObject(input) ? input.messages : undefined;
    if (Array.isArray(messages)) {
      const questions = messages.filter((m) => isPlainObject(m) && m.role === "user");
      const last = questions[questions.length - 1];
      this.questionId = last && typeof last.id === "string" ? last.id : null;
    }
    const keptThread = this.options.keptThread;
    if (keptThread === null) {
      if (ownThread === null) {
        this.readThread(messages);
        return;
      }
      this.reading(ownThread, (own) => {
        if (own) this.threadUnread(OWN_THREAD);
        else this.readThread(messages);
      }, (error) => this.threadUnread(reason(error)));
      return;
    }
    const failed = (/** @type {unknown} */ error) =>
      this.threadUnread(`keptThread failed: ${reason(error)}`);
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
        this.reading(/** @type {PromiseLike<unknown>} */ (kept), take, failed);
      } else {
        take(kept);
      }
    } catch (error) {
      failed(error);
    }
  }

  /** Read the thread once `pending` resolves; lookups wait for it.
   * @template T @param {PromiseLike<T>} pending @param {(value: T) => void} take
   * @param {(error: unknown) => void} failed */
  reading(pending, take, failed) {
    this.threadReading = Promise.resolve(pending).then(take, failed).finally(() => {
      this.threadReading = null;
    });
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
      this.threadUnread(reason(error));
      return;
    }
    for (const result of results) {
      try {
        this.addEarlier(result);
      } catch (error) {
        this.threadUnread(`a result of ${result.tool}: ${reason(error)}`);
        return;
      }
    }
  }

  /** @param {string} why */
  threadUnread(why) {
    if (!this.threadRead) return;
    this.threadRead = false;
    this.log.warn(`the thread was not read: ${why}; which source a marker names is not known, ` +
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
        items = readerItems(shownValue, this.log);
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
      this.log.debug(`result of unknown tool call ${String(callId)} ignored`);
      return;
    }
    if (!this.isReader(tool)) return;
    let items;
    try {
      items = readerItems(content, this.log);
    } catch (error) {
      this.log.warn(`skipped a result of ${tool}: ${reason(error)}`);
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
      this.held += kept.length;
      this.results.push({ callId: /** @type {string} */ (callId), arrival: this.results.length,
        capturedAt: new Date(), source: tool, items: kept });
    }
  }

  /** @param {string} id @param {string} role */
  opened(id, role) {
    if (role !== "assistant") this.muted.add(id);
    this.open.add(id);
    const stretches = this.cuts.get(id);
    const cut = this.results.length;
    if (!stretches) this.cuts.set(id, [[0, cut]]);
    else if (stretches[stretches.length - 1][1] !== cut) stretches.push([this.texts.get(id)?.length ?? 0, cut]);
  }

  /** @param {string} id @param {string} delta */
  text(id, delta) {
    if (!delta) return;
    const had = this.texts.get(id);
    // text of a message never opened (a snapshot's) was written with the results shown by now
    if (had === undefined && !this.cuts.has(id)) this.cuts.set(id, [[0, this.results.length]]);
    this.texts.set(id, (had ?? "") + delta);
  }

  /** @param {string} id */
  closed(id) {
    this.open.delete(id);
    if (this.lookingAhead() && !this.threadReading && !this.muted.has(id)) this.lookAhead(id);
  }

  /** Whether an ended answer may need a lookup not started yet: one may still start and some
   * source's record can come only from it (a compact result, an earlier turn). */
  lookingAhead() {
    return this.lookups.startable && (this.compactTools.size > 0 || this.earlier.length > 0);
  }

  /** Start the lookups an ended answer will need, while the run goes on (returns at once).
   * @param {string} id */
  lookAhead(id) {
    const text = this.texts.get(id);
    if (!text || !this.affordable()) return;
    const context = this.context();
    const first = this.mentioned(text, context, false, this.cuts.get(id));
    this.lookups.start(this.toLookUp(first, context))?.catch(() => {});
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
      this.log.debug(`the snapshot names message ${old} ${renamed}`);
      this.rename(old, renamed);
    }
    for (const [id, content] of answers) {
      if (typeof content === "string" && content.trim() && !this.texts.get(id) && afterQuestion?.has(id)) {
        this.text(id, content);
      }
    }
    for (const id of this.withText()) {
      if (!ids.has(id)) {
        if (!this.muted.has(id)) this.log.debug(`message ${id} is not in the snapshot; not cited`);
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
        const ids = dropped.get(text);
        if (ids) ids.push(id);
        else dropped.set(text, [id]);
      }
    }
    if (!dropped.size) return [];
    /** @type {Map<string, string[]>} */
    const named = new Map();
    for (const [id, content] of answers) {
      const text = typeof content === "string" ? content.trim() : null;
      if (text !== null && dropped.has(text) && !this.texts.get(id)) {
        const ids = named.get(text);
        if (ids) ids.push(id);
        else named.set(text, [id]);
      }
    }
    return [...named].filter(([text, fresh]) => fresh.length === 1 && dropped.get(text)?.length === 1)
      .map(([text, fresh]) => [/** @type {string[]} */ (dropped.get(text))[0], fresh[0]]);
  }

  /** The message `old` is now `renamed`: its text, place, and whether it is muted or cited
   * go with it. @param {string} old @param {string} renamed */
  rename(old, renamed) {
    this.texts = new Map([...this.texts].map(([id, text]) => [id === old ? renamed : id, text]));
    const cut = this.cuts.get(old);
    if (cut !== undefined && this.cuts.delete(old)) this.cuts.set(renamed, cut);
    for (const ids of [this.muted, this.sent]) {
      if (ids.delete(old)) ids.add(renamed);
    }
    this.made.delete(old);
  }

  // -- the ledger -----------------------------------------------------------------------------

  /** This run's results in the order the model issued their calls (results of no announced
   * call after, as they came). */
  inModelOrder() {
    return [...this.results].sort((a, b) => this.byModelOrder(a, b));
  }

  /** @param {Result} a @param {Result} b */
  byModelOrder(a, b) {
    return this.placeOf(a) - this.placeOf(b) || a.arrival - b.arrival;
  }

  /** @param {Result} result */
  placeOf(result) {
    const unannounced = this.calls.size;
    return result.callId === null ? unannounced : this.calls.get(result.callId) ?? unannounced;
  }

  /** The keys of the entries whose place depends on an order no one knows (a turn of the
   * thread whose results it lists out of their calls' order; this run's turn, whose order
   * is known, comes last and changes none of them). */
  unsure() {
    if (this.turns.every((turn) => !turn || turn.known)) return new Set();
    return unsure(this.turns.filter(Boolean).map(({ known, results }) => ({
      known, results: results.map((result) => result.map(keyOf)) })));
  }

  // -- resolution ------------------------------------------------------------------------------

  /** The event of each answer due, in the order the answers began; a Promise while lookups run.
   * @returns {AnyEvent[] | Promise<AnyEvent[]>} */
  due() {
    const ids = this.toCite();
    const values = this.values(ids);
    const events = (/** @type {Map<string, object>} */ found) => ids.filter((id) => found.has(id))
      .map((id) => ({ type: "CUSTOM", name: EVENT_NAME, value: found.get(id) }));
    if (values instanceof Promise) return values.then(events).finally(() => this.lookups.end());
    this.lookups.end();
    return events(values);
  }

  /** The value each of `ids` has in its event, as its text stands now (made once per text).
   * @param {string[]} ids @returns {Map<string, object> | Promise<Map<string, object>>} */
  values(ids) {
    const reading = this.threadReading;
    if (reading) return reading.then(() => this.values(ids));
    const context = this.context();
    /** @type {Array<[string, ReturnType<CitationRun["mentioned"]>]>} */
    const wanted = [];
    /** @type {string[]} */
    const refs = [];
    for (const id of ids) {
      const text = this.texts.get(id) ?? "";
      if (this.made.get(id)?.text === text) continue;
      const first = this.mentioned(text, context, true, this.cuts.get(id));
      wanted.push([id, first]);
      refs.push(...this.toLookUp(first, context));
    }
    const finish = () => {
      /** @type {Map<string, object>} */
      const found = new Map();
      for (const [id, first] of wanted) {
        const text = this.texts.get(id) ?? "";
        this.made.set(id, { text, value: citationsValue(id, this.citations(first, context), this.options) });
      }
      for (const id of ids) {
        const made = this.made.get(id);
        if (made) found.set(id, made.value);
      }
      return found;
    };
    const pending = this.lookups.start(refs);
    return pending ? pending.then(finish) : finish();
  }

  /** What resolution reads, for the ledger as it stands: every entry once, in the model's
   * order (the thread's, then this run's results). Kept as results come in: those that fall
   * after the ones it holds are appended; one that falls before them (its call was issued
   * earlier, it came later), or a thread read after them, makes it anew once.
   * @returns {Context} */
  context() {
    let context = this.contextOf;
    if (!context || this.outOfOrder(context)) {
      context = this.contextOf = this.madeAnew(context?.checked ?? new Map());
    } else {
      const fresh = this.results.slice(context.results).sort((a, b) => this.byModelOrder(a, b));
      for (const result of fresh) this.fold(result, context);
      context.scanned = context.results;
    }
    context.blind = !this.threadRead || !(this.shown.size > 0 || this.counted);
    return context;
  }

  /** Whether `context` must be made anew: the thread was read after it, or a result came
   * that falls before the last one it holds. @param {Context} context */
  outOfOrder(context) {
    if (context.earlier !== this.earlier.length) return true;
    const bound = context.last === null ? -Infinity : this.placeOf(context.last);
    for (; !context.stale && context.scanned < this.results.length; context.scanned += 1) {
      context.stale = this.placeOf(this.results[context.scanned]) < bound;
    }
    return context.stale;
  }

  /** Whether a look-ahead may bring the context up to date: appending costs only what came
   * since; making it anew costs every entry, so a look-ahead does it only while all that was
   * made anew stays under twice the entries the run holds (results out of their calls' order
   * between answers cost linear work, not quadratic; the lookups then wait for the end). */
  affordable() {
    const context = this.contextOf;
    return !context || !this.outOfOrder(context) || this.remade < 2 * (this.earlier.length + this.held);
  }

  /** The context of the ledger as it stands, made from nothing (records already checked
   * stay so). @param {Map<unknown, boolean>} checked @returns {Context} */
  madeAnew(checked) {
    /** @type {Context} */
    const context = { seen: new Map(), order: [], byRef: new Map(), blind: false, unsure: this.unsure(),
      checked, named: new Map(), first: new Map(), results: 0, earlier: this.earlier.length, last: null,
      scanned: this.results.length, stale: false, latest: -1, reach: [], threadReach: 0 };
    for (const { entry } of this.earlier) {
      const key = keyOf(entry);
      if (!context.seen.has(key)) {
        this.append({ entry, key, records: [], compact: false, earlier: true, arrival: -1 }, context);
      }
    }
    context.threadReach = context.order.length;
    for (const result of this.inModelOrder()) this.fold(result, context);
    this.remade += this.earlier.length + this.held;
    return context;
  }

  /** Add a result, which falls after every one `context` holds: its new entries go last, its
   * records to their entries, and how many entries the model had been shown once it came;
   * what the context knew of their nodes is worked out anew.
   * @param {Result} result @param {Context} context */
  fold(result, context) {
    for (const item of result.items) {
      const key = keyOf(item.entry);
      let known = context.seen.get(key);
      if (!known) {
        known = { entry: item.entry, key, records: [], compact: item.compact, earlier: false,
          arrival: result.arrival };
        this.append(known, context);
      } else {
        known.compact = known.compact || item.compact;
        if (!known.earlier && result.arrival < known.arrival) known.arrival = result.arrival;
      }
      if (item.record !== null) {
        known.records.push({ record: item.record, capturedAt: result.capturedAt, source: result.source });
      }
      context.named.delete(item.entry.ref);
      context.first.delete(item.entry.ref);
    }
    context.results += 1;
    context.last = result;
    context.latest = Math.max(context.latest, result.arrival);
    // the first k results in the model's order are the first k that arrived
    context.reach.push(context.latest === context.reach.length ? context.order.length : -1);
  }

  /** An entry new to `context`, after every one it holds. @param {Seen} seen @param {Context} context */
  append(seen, context) {
    context.seen.set(seen.key, seen);
    context.order.push(seen);
    const same = context.byRef.get(seen.entry.ref);
    if (same) same.push(seen);
    else context.byRef.set(seen.entry.ref, [seen]);
  }

  /**
   * The entries `text` names, in order of first mention, each with its marker (null: named
   * by its versioned ref). A marker names only what its model had been shown when its stretch
   * of `stretches` began (where it begins, how many results had arrived; none: all had); a
   * versioned ref names its node by itself.
   * @param {string} text @param {Context} context @param {boolean} report
   * @param {Array<[number, number]>} [stretches]
   * @returns {Map<string, { seen: Seen, marker: string | null }>}
   */
  mentioned(text, context, report, stretches = []) {
    /** @type {Array<{ start: number, ref: string, seen: Seen, marker: string | null }>} */
    const mentions = [];
    for (const [start, ref] of findRefs(text, context.byRef, this.log)) {
      mentions.push({ start, ref, seen: this.named(ref, context), marker: null });
    }
    const reach = this.reach(context, stretches[stretches.length - 1]?.[1]);
    const earlier = stretches.slice(0, -1).map(([, cut]) => this.reach(context, cut));
    /** The reach of the stretch a marker at `start` stands in, if it is not the last.
     * @param {number} start */
    const stretchAt = (start) => {
      let low = 0;
      let high = stretches.length - 1; // the last stretch beginning at or before `start`
      while (low < high) {
        const middle = (low + high + 1) >> 1;
        if (stretches[middle][0] <= start) low = middle;
        else high = middle - 1;
      }
      return low < earlier.length ? earlier[low] : undefined;
    };
    if (reach === null && !context.blind && report) {
      this.log.warn("left out the default markers of an answer that began while a Reader call issued " +
        "before it had no result: which sources its model had counted is not known");
    }
    if (!context.blind) {
      /** @type {Set<string>} */
      const unsureMarkers = new Set();
      const knows = (/** @type {number} */ number) => this.knownEntry(number, context, reach) !== null;
      for (const { start, marker, numbers } of markersIn(text, knows, this.log)) {
        for (const number of numbers) {
          const entry = this.entryOfNumber(number, context, reach);
          const stretch = stretchAt(start);
          const own = stretch === undefined ? entry : this.entryOfNumber(number, context, stretch);
          if (!entry || !own || keyOf(own) !== keyOf(entry)) {
            this.log.debug(`left out ${number} of ${marker}: it names no source shown before it`);
            continue;
          }
          if (this.isUnsure(entry, number, context)) {
            unsureMarkers.add(marker);
            continue;
          }
          const seen = /** @type {Seen} */ (context.seen.get(keyOf(entry)));
          mentions.push({ start, ref: entry.ref, seen, marker });
        }
      }
      if (report) {
        for (const marker of unsureMarkers) {
          this.log.warn(`left out the marker ${marker}: the thread lists Reader results out of their ` +
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

  /** How many entries the model had been shown when `cut` results had arrived (undefined:
   * all): the thread's and theirs; null if a result that arrived later comes before one of
   * them in the model's order (which sources it counted is not known), unless the model was
   * shown markers, which name their entries themselves. @param {Context} context
   * @param {number} [cut] @returns {{ count: number | null, cut: number } | null} */
  reach(context, cut) {
    const all = context.reach.length;
    if (cut === undefined || cut >= all) return { count: context.order.length, cut: Infinity };
    const count = cut <= 0 ? context.threadReach : context.reach[cut - 1];
    if (count >= 0) return { count, cut };
    return this.shown.size ? { count: null, cut } : null;
  }

  /** The entry the number n names, if the run holds it and knows which source it is.
   * @param {number} number @param {Context} context
   * @param {ReturnType<CitationRun["reach"]>} reach @returns {Entry | null} */
  knownEntry(number, context, reach) {
    const entry = this.entryOfNumber(number, context, reach);
    return entry && !this.isUnsure(entry, number, context) ? entry : null;
  }

  /** Whether the source the model numbered n is not known: `entry` is listed out of its
   * call's order and the model was not shown its number.
   * @param {Entry} entry @param {number} number @param {Context} context */
  isUnsure(entry, number, context) {
    const key = keyOf(entry);
    return context.unsure.has(key) && this.shown.get(key) !== `[${number}]`;
  }

  /** The entry the number n names, if the run holds it and the model had been shown it by
   * `reach` (null: none is known): what the marker table gives `[n]` (the numbers the model
   * was shown, else the n-th entry in the model's order).
   * @param {number} number @param {Context} context
   * @param {ReturnType<CitationRun["reach"]>} reach @returns {Entry | null} */
  entryOfNumber(number, context, reach) {
    if (reach === null) return null;
    if (this.shown.size) {
      const entry = this.byMarker.get(`[${number}]`);
      const seen = entry ? context.seen.get(keyOf(entry)) : undefined;
      return entry && seen && seen.arrival < reach.cut ? entry : null;
    }
    const count = /** @type {number} */ (reach.count);
    return number <= count ? context.order[number - 1].entry : null;
  }

  /** The entry a versioned ref cites: the node's first entry with a valid whole-node record,
   * else its first entry. @param {string} ref @param {Context} context */
  named(ref, context) {
    let named = context.named.get(ref);
    if (!named) {
      const entries = /** @type {Seen[]} */ (context.byRef.get(ref));
      named = entries.find((s) => this.isWhole(s, context)) ?? entries[0];
      context.named.set(ref, named);
    }
    return named;
  }

  /** The node's first valid record, in the model's order, of any span.
   * @param {string} ref @param {Context} context @returns {Found | null} */
  firstRecord(ref, context) {
    let first = context.first.get(ref);
    if (first === undefined) {
      first = null;
      for (const other of context.byRef.get(ref) ?? []) {
        first = this.recordOf(other, context);
        if (first) break;
      }
      context.first.set(ref, first);
    }
    return first;
  }

  /** @param {Seen} seen @param {Context} context */
  isWhole(seen, context) {
    return seen.entry.span === null && this.recordOf(seen, context) !== null;
  }

  /** An entry's first valid record of a loaded package. @param {Seen} seen
   * @param {Context} context @returns {Found | null} */
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
      this.log.warn(`skipped an invalid record from ${source}: ${problem}`);
      return false;
    }
    const packages = this.options.packages;
    const pkg = /** @type {any} */ (record).package;
    if (packages !== null && !packages.has(pkg.digest)) {
      this.log.warn(`skipped a record of package ${pkg.id}: its digest ${pkg.digest} is not in \`packages\``);
      return false;
    }
    return true;
  }

  /** @param {Map<string, { seen: Seen, marker: string | null }>} first
   * @param {Context} context */
  toLookUp(first, context) {
    /** @type {string[]} */
    const refs = [];
    for (const { seen } of first.values()) {
      if ((seen.compact || seen.earlier) && this.recordOf(seen, context) === null &&
          this.whole(seen.entry.ref, context) === null) refs.push(seen.entry.ref);
    }
    return refs;
  }

  /** @param {string} ref @param {Context} context */
  whole(ref, context) {
    const named = this.named(ref, context);
    return named.entry.span === null ? this.recordOf(named, context) : null;
  }

  /** The citations of the entries `first` names: one per node and span, each with the record
   * the run holds for it. @param {Map<string, { seen: Seen, marker: string | null }>} first
   * @param {Context} context @returns {Citation[]} */
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

  /** @param {Seen} seen @param {Context} context @returns {Found | null} */
  foundFor(seen, context) {
    const own = this.recordOf(seen, context);
    if (own) return own;
    const ref = seen.entry.ref;
    const whole = this.whole(ref, context);
    if (whole) return whole;
    if (!seen.compact && !seen.earlier) return null;
    const looked = this.lookups.found(ref);
    if (looked) return looked;
    const first = this.firstRecord(ref, context);
    if (first) return first;
    if (!this.lookups.given && !this.told.has(ref)) {
      this.told.add(ref);
      const tool = this.compactTools.get(ref);
      if (seen.earlier && tool === undefined) {
        this.log.warn(`left out ${ref}: it was read in an earlier turn, and the thread's records are ` +
          "not trusted; to cite follow-up answers, pass lookup: <ref -> record>");
      } else {
        this.log.warn(`left out ${ref}: ${tool ?? "the Reader tool"} returned a compact result, not a ` +
          `citation record; call it with detail: "full", or pass lookup: <ref -> record>`);
      }
    }
    return null;
  }

}
