// One run's lookups (moca_agui.run.lookups): `lookup(ref)` asked at most once per node, at
// most `maxLookups` nodes, `lookupConcurrency` at a time, each within `lookupTimeout` and
// all within `lookupDeadline` of the first. What it answers is cited only if it is a valid
// record of the node asked for.
import { plainCopy } from "./json.js";
import { Log } from "./log.js";

const LATE = Symbol("late");

/**
 * @typedef {{ record: any, capturedAt: Date, span: [number, number] | null }} Found
 * @typedef {{ ref: string, span: [number, number] | null }} Entry
 */

/** A promise of LATE in `ms` milliseconds (at once if none is left), and its clearing.
 * @param {number} ms */
function later(ms) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  /** @type {Promise<typeof LATE>} */
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve(LATE), Math.max(0, ms));
  });
  return { late, clear: () => clearTimeout(timer) };
}

export class Lookups {
  /**
   * @param {{ lookup: ((ref: string) => unknown) | null, lookupTimeout: number, maxLookups: number,
   *   lookupConcurrency: number, lookupDeadline: number,
   *   logger: import("./log.js").Logger }} options
   * @param {(source: string, record: unknown) => boolean} accept whether a record may be sent
   * @param {(record: unknown) => Entry | null} entryOf the entry a record names
   */
  constructor(options, accept, entryOf) {
    this.options = options;
    this.log = new Log(options.logger);
    this.accept = accept;
    this.entryOf = entryOf;
    /** @type {Map<string, Found | null | Promise<void>>} ref -> what was found, or the asking */
    this.asked = new Map();
    this.running = 0;
    /** @type {Array<{ go: () => void, granted: boolean, gone: boolean }>} lookups waiting a place */
    this.queue = [];
    this.deadline = 0;
    /** @type {Set<string>} the bounds already logged */
    this.told = new Set();
    this.ended = false;
  }

  /** Whether the service gave a `lookup`. */
  get given() {
    return this.options.lookup !== null;
  }

  /** Whether a lookup not asked yet may still start: a `lookup` given, the run not ended,
   * fewer than `maxLookups` nodes asked. */
  get startable() {
    return this.given && !this.ended && this.asked.size < this.options.maxLookups;
  }

  /** What `lookup` found for `ref` (null: nothing; undefined: not asked, or not answered yet).
   * @param {string} ref @returns {Found | null | undefined} */
  found(ref) {
    const found = this.asked.get(ref);
    return found instanceof Promise ? undefined : found;
  }

  /** Ask for each of `refs` not asked yet; a Promise of all of them, or null if none waits.
   * @param {string[]} refs @returns {Promise<void> | null} */
  start(refs) {
    const lookup = this.options.lookup;
    if (lookup === null || this.ended || !refs.length) return null;
    /** @type {Promise<void>[]} */
    const waiting = [];
    for (const ref of new Set(refs)) {
      const had = this.asked.get(ref);
      if (had instanceof Promise) waiting.push(had);
      if (had !== undefined) continue;
      if (this.asked.size >= this.options.maxLookups) {
        this.tell("maxLookups", `left out ${ref} and every further source only a lookup could give ` +
          `a record of: this run looked up maxLookups=${this.options.maxLookups} nodes; pass a ` +
          "larger maxLookups to look up more");
        continue;
      }
      if (this.asked.size === 0) this.deadline = Date.now() + this.options.lookupDeadline * 1000;
      const asking = this.ask(lookup, ref).then((found) => {
        this.asked.set(ref, found);
      });
      this.asked.set(ref, asking);
      waiting.push(asking);
    }
    return waiting.length ? Promise.all(waiting).then(() => undefined) : null;
  }

  /** No lookup starts any more, and those waiting for a place give up (the run ended). */
  end() {
    this.ended = true;
  }

  /** What `lookup` answers for `ref`, if it may be cited: waiting for a place until the run's
   * deadline, the call itself within `lookupTimeout` (and the deadline).
   * @param {(ref: string) => unknown} lookup @param {string} ref @returns {Promise<Found | null>} */
  async ask(lookup, ref) {
    const deadline = later(this.deadline - Date.now());
    let placed = false;
    /** @type {ReturnType<typeof later> | null} */
    let timeout = null;
    try {
      placed = await this.place(deadline.late);
      if (this.ended) return null;
      if (!placed || Date.now() >= this.deadline) {
        this.tell("lookupDeadline", `left out ${ref} and every source still being looked up ` +
          `lookupDeadline=${this.options.lookupDeadline} seconds after this run's first lookup`);
        return null;
      }
      timeout = later(Math.min(this.options.lookupTimeout * 1000, this.deadline - Date.now()));
      const answer = await Promise.race([(async () => lookup(ref))(), timeout.late]);
      if (answer === LATE) {
        if (!this.ended) {
          this.log.warn(`left out ${ref}: lookup failed: no answer within lookupTimeout=` +
            `${this.options.lookupTimeout} seconds (or the run's lookupDeadline)`);
        }
        return null;
      }
      return this.checked(ref, answer);
    } catch (error) {
      this.log.warn(`left out ${ref}: lookup failed`, error);
      return null;
    } finally {
      deadline.clear();
      timeout?.clear();
      if (placed) this.release();
    }
  }

  /** The record `lookup` answered for `ref`, if it may be cited. @param {string} ref @param {unknown} answer */
  checked(ref, answer) {
    if (answer === null || answer === undefined) {
      this.log.debug(`left out ${ref}: lookup found no record`);
      return null;
    }
    const record = plainCopy(answer, this.log);
    if (record === null || !this.accept("lookup", record)) return null;
    const entry = this.entryOf(record);
    if (!entry || entry.ref !== ref) {
      this.log.warn(`left out ${ref}: lookup returned another node`);
      return null;
    }
    return { record, capturedAt: new Date(), span: entry.span };
  }

  /** A place among `lookupConcurrency` running lookups: true once held, false if `late` came
   * first. @param {Promise<typeof LATE>} late @returns {Promise<boolean>} */
  place(late) {
    if (this.running < this.options.lookupConcurrency) {
      this.running += 1;
      return Promise.resolve(true);
    }
    /** @type {{ go: () => void, granted: boolean, gone: boolean }} */
    const waiter = { go: () => {}, granted: false, gone: false };
    const turn = new Promise((resolve) => {
      waiter.go = () => {
        waiter.granted = true;
        resolve(true);
      };
    });
    this.queue.push(waiter);
    const gaveUp = late.then(() => {
      if (waiter.granted) return true; // it held the place first
      waiter.gone = true;
      return false;
    });
    return Promise.race([turn, gaveUp]);
  }

  /** Give a place back: to the first lookup still waiting, else free. */
  release() {
    let next = this.queue.shift();
    while (next && next.gone) next = this.queue.shift();
    if (next) next.go();
    else this.running -= 1;
  }

  /** Log that a source went past `bound`, the first time one does in this run.
   * @param {string} bound @param {string} message */
  tell(bound, message) {
    if (!this.told.has(bound)) {
      this.told.add(bound);
      this.log.warn(message);
    }
  }
}
