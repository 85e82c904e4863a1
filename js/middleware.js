// moca-agui/middleware: `moca.citations` for any TypeScript AG-UI agent (Mastra, CopilotKit's
// runtime, any AbstractAgent of @ag-ui/client), as the Python core (moca_agui.cite) sends it.
//
//   instrument(agent);   // the line for any agent; agent.use(new CitationMiddleware()) is the
//                        // lower-level form, for an agent known to read the request's thread
//
// It follows the stream its place in the middleware chain gives it (chunked or expanded
// events), keeps the records the Reader's tools returned in this run (TOOL_CALL_RESULT), and
// sends one `moca.citations` event per answer after its TEXT_MESSAGE_END and before
// RUN_FINISHED. Markers count over the thread in `RunAgentInput.messages`, in the model's
// order (or `keptThread`'s; an agent that keeps a thread of its own without it: none). The
// agent's own events pass through as they came; a failure is logged and the stream flows
// on. State belongs to one subscription of `run`, never to the instance.
import { Middleware } from "@ag-ui/client";
import { Observable } from "rxjs";
import { Log, reason } from "./middleware/log.js";
import { citationOptions } from "./middleware/options.js";
import { keepsOwnThread } from "./middleware/own-thread.js";
import { CitingStream } from "./middleware/stream.js";

export { DEFAULT_READER_TOOLS } from "./middleware/options.js";

/**
 * @typedef {import("./middleware/options.js").Options} Options
 * @typedef {import("./middleware.d.ts").CitationMiddlewareOptions} CitationMiddlewareOptions
 */

const UNSEEN = "the middleware is not handed the agent (@ag-ui/client 1.x runs its chain so), so " +
  "default markers count over the request's thread; an agent that reads a thread of its own " +
  "(a Mastra agent with memory) needs instrument(agent) of moca-agui/middleware, or keptThread";

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
    /** Whether it logged that it cannot see the agent (once per instance). */
    this.toldUnseen = false;
  }

  /**
   * The events of `next.run(input)`, unchanged and in order, plus the citation events.
   * @param {import("@ag-ui/client").RunAgentInput} input
   * @param {import("@ag-ui/client").AbstractAgent} next
   * @returns {Observable<import("@ag-ui/client").BaseEvent>}
   */
  run(input, next) {
    return citedObservable(next.run(input), input, this.options, () => this.ownThread(next));
  }

  /** Whether the agent reads a thread of its own that no `keptThread` gives (keepsOwnThread):
   * the agent `next` is, else the one `instrument` bound; neither in sight, the request's
   * thread counts (logged once). @param {unknown} next @returns {Promise<boolean> | null} */
  ownThread(next) {
    if (this.options.keptThread !== null) return null;
    const handed = keepsOwnThread(next);
    if (handed !== null || isAgent(next)) return handed;
    const bound = this.boundAgent();
    if (bound !== null) return keepsOwnThread(bound);
    if (!this.toldUnseen) {
      this.toldUnseen = true;
      new Log(this.options.logger).warn(UNSEEN);
    }
    return null;
  }

  /** The agent `instrument` bound this middleware to: none. @returns {object | null} */
  boundAgent() {
    return null;
  }
}

/** A CitationMiddleware that knows the agent it was added to (`instrument`), where the client
 * hands it a link of its chain instead. */
class BoundCitationMiddleware extends CitationMiddleware {
  /** @param {CitationMiddlewareOptions} options @param {object} agent */
  constructor(options, agent) {
    super(options);
    /** @readonly */
    this.agent = agent;
  }

  /** @returns {object} */
  boundAgent() {
    return this.agent;
  }
}

/**
 * `agent`, citing: `agent.use(new CitationMiddleware(options))` with the middleware bound to
 * `agent`, so that on any @ag-ui/client it tells an agent that reads a thread of its own
 * (a Mastra agent with memory); and every clone of it cites (`citeClones`). Once: an agent
 * whose chain holds one bound to it adds none; a clone whose chain holds the one it copied
 * has it bound to itself, with the same options.
 * @template {import("@ag-ui/client").AbstractAgent} A
 * @param {A} agent @param {CitationMiddlewareOptions} [options] @returns {A}
 */
export function instrument(agent, options = {}) {
  if (agent === null || typeof agent !== "object" || typeof agent.use !== "function") {
    throw new TypeError("instrument takes an AbstractAgent of @ag-ui/client (an object with use())");
  }
  const fields = /** @type {any} */ (agent);
  const chain = Array.isArray(fields.middlewares) ? fields.middlewares : [];
  const held = chain.find((/** @type {unknown} */ middleware) => middleware instanceof BoundCitationMiddleware);
  if (held?.agent === agent) return agent;
  const middleware = new BoundCitationMiddleware(held?.options ?? options, agent);
  if (held === undefined) agent.use(middleware);
  else fields.middlewares = chain.map((/** @type {unknown} */ each) => (each === held ? middleware : each));
  citeClones(agent, middleware.options);
  return agent;
}

/**
 * Makes `agent.clone()`, on this instance only (never its class), return the clone
 * instrumented with `options` and bound to the clone: CopilotKit's runtime runs a clone per
 * request, and MastraAgent's clone keeps no middleware. A clone that cannot be instrumented
 * is returned as it is, and logged.
 * @param {object} agent @param {Options} options
 */
function citeClones(agent, options) {
  const given = /** @type {CitationMiddlewareOptions} checked ones */ (/** @type {unknown} */ (options));
  const clone = /** @type {any} */ (agent).clone;
  if (typeof clone !== "function") return;
  Object.defineProperty(agent, "clone", {
    configurable: true,
    writable: true,
    /** @this {unknown} @param {unknown[]} args */
    value: function cloneCiting(...args) {
      const copy = clone.apply(this, args);
      try {
        return instrument(copy, given);
      } catch (error) {
        new Log(options.logger).warn(`a clone of the agent was not instrumented, so it cites nothing: ${reason(error)}`);
        return copy;
      }
    },
  });
}

/** Whether `next` is an agent rather than a link of the client's chain (which has only
 * `run` and the agent's `messages` and `state`). @param {unknown} next */
const isAgent = (next) => typeof (/** @type {any} */ (next)?.runAgent) === "function";

/**
 * `events` with the citations `options` say, as one observable of this run: the state is
 * made on subscription. `ownThread` tells, on subscription, whether the agent reads a
 * thread of its own that no `keptThread` gives (null: it reads the request's).
 * @template E
 * @param {import("rxjs").Observable<E>} events @param {unknown} input @param {Options} options
 * @param {() => Promise<boolean> | null} [ownThread]
 * @returns {Observable<E>}
 */
export function citedObservable(events, input, options, ownThread = () => null) {
  return new Observable((subscriber) => {
    const emit = (/** @type {any} */ event) => subscriber.next(event);
    const stream = new CitingStream(options, input, emit, ownThread());
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

