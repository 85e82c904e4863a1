// Types of moca-agui/middleware (middleware.js): moca.citations for TypeScript AG-UI agents,
// with one line: `instrument(agent)`. `agent.use(new CitationMiddleware())` is the lower-level
// form, for an agent known to read the request's thread (on @ag-ui/client 1.x it cannot see
// the agent, and counts markers over the request's thread whatever the agent reads).
import { Middleware } from "@ag-ui/client";
import type { AbstractAgent, BaseEvent, Message, RunAgentInput } from "@ag-ui/client";
import type { Observable } from "rxjs";
import type { CitationRecord } from "./index.js";

/** The tool names of the reference MOCA Reader: moca_search, moca_get_node, moca_structure. */
export declare const DEFAULT_READER_TOOLS: readonly string[];

/** What `new CitationMiddleware(options)` takes; each has the Python core's default. */
export interface CitationMiddlewareOptions {
  /** Names of the tools whose results are Reader results (also under an MCP client's
   * `mcp__<server>__` prefix). Default: DEFAULT_READER_TOOLS. */
  readerTools?: Iterable<string>;
  /** Keep each record's `text` in the event (false drops it). Default: true. */
  includeText?: boolean;
  /** ref -> the whole citation record (or null), sync or async: the Reader's
   * `moca_get_node`, for compact search results and earlier turns' sources. */
  lookup?: ((ref: string) => CitationRecord | null | undefined | Promise<CitationRecord | null | undefined>) | null;
  /** Digests of the packages the service loaded; records of any other are left out. */
  packages?: Iterable<string> | null;
  /** Size budget of one event's JSON; over it, `text` is dropped from the largest records first. */
  maxEventBytes?: number;
  /** Seconds one lookup call may take. Default: 10. */
  lookupTimeout?: number;
  /** Nodes one run looks up at most. Default: 64. */
  maxLookups?: number;
  /** Lookups one run has running at a time at most. Default: 8. */
  lookupConcurrency?: number;
  /** Seconds all of one run's lookups may take, from its first. Default: 30. */
  lookupDeadline?: number;
  /** Where the agent keeps the thread its model reads (Mastra with memory): that thread as
   * AG-UI messages, or a Promise of them; the request's messages it does not hold follow.
   * null (or a failure): the thread is not known, and markers are left out (versioned refs
   * are cited). Default: none, the request's `messages` are the thread, unless the agent
   * keeps one of its own (a Mastra agent whose `getMemory()` resolves to a memory): then
   * markers are left out. The middleware sees the agent where `instrument` added it, or
   * where the client hands it the agent (@ag-ui/client 0.0.59); `agent.use` on 1.x cannot. */
  keptThread?: ((input: RunAgentInput) => Message[] | null | Promise<Message[] | null>) | null;
  /** Where the log lines go, each prefixed `moca-agui:`: `warn` (default: console.warn) for
   * what a service should know (a source left out, citations off for a run), `debug`
   * (default: none, as the Python core's debug lines) for the rest. A level left out keeps
   * its default; `console` takes both. */
  logger?: {
    debug?: (message: string, ...rest: unknown[]) => void;
    warn?: (message: string, ...rest: unknown[]) => void;
  };
}

/** Adds one `moca.citations` event per answer to an agent's stream; `instrument(agent)` adds
 * it. `agent.use(new CitationMiddleware())` is the lower-level form, for an agent known to
 * read the request's thread: on @ag-ui/client 1.x it cannot see the agent (logged once), so
 * for an agent that may read a thread of its own (a Mastra agent with memory) it may name
 * a wrong source. One instance serves concurrent runs. */
export declare class CitationMiddleware extends Middleware {
  constructor(options?: CitationMiddlewareOptions);
  run(input: RunAgentInput, next: AbstractAgent): Observable<BaseEvent>;
}

/** `agent`, citing: `agent.use(new CitationMiddleware(options))` with the middleware bound to
 * the agent, so that on any @ag-ui/client it tells an agent that reads a thread of its own
 * (a Mastra agent with memory). Its clones cite too: this instance's `clone()` returns the
 * clone instrumented with the same options (CopilotKit's runtime runs a clone per request;
 * a MastraAgent's clone keeps no middleware). Idempotent: an agent whose chain holds one
 * gets no second (and the later call's options are not taken). */
export declare function instrument<A extends AbstractAgent>(agent: A, options?: CitationMiddlewareOptions): A;
