// moca-agui/middleware: `moca.citations` for any TypeScript AG-UI agent (Mastra, CopilotKit's
// runtime, any AbstractAgent of @ag-ui/client), as the Python core (moca_agui.cite) sends it.
//
//   agent.use(new CitationMiddleware());
//
// It follows the stream its place in the middleware chain gives it (chunked or expanded
// events), keeps the records the Reader's tools returned in this run (TOOL_CALL_RESULT), and
// sends one `moca.citations` event per answer after its TEXT_MESSAGE_END and before
// RUN_FINISHED. Markers count over the thread in `RunAgentInput.messages`, in the model's
// order (or `keptThread`'s; an agent that keeps a thread of its own without it: none). The agent's own events pass through as they came; a failure is logged and the stream
// flows on. State belongs to one subscription of `run`, never to the instance.
import { Middleware } from "@ag-ui/client";
import { Observable } from "rxjs";
import { citationOptions } from "./middleware/options.js";
import { keepsOwnThread } from "./middleware/own-thread.js";
import { CitingStream } from "./middleware/stream.js";

export { DEFAULT_READER_TOOLS } from "./middleware/options.js";

/**
 * @typedef {import("./middleware/options.js").Options} Options
 * @typedef {import("./middleware.d.ts").CitationMiddlewareOptions} CitationMiddlewareOptions
 */

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
    const ownThread = this.options.keptThread === null ? () => keepsOwnThread(next) : () => null;
    return citedObservable(next.run(input), input, this.options, ownThread);
  }
}

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

