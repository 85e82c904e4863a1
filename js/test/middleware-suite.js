// The CitationMiddleware's tests, for whichever @ag-ui/client the caller imports: 1.x
// (middleware.test.js) and 0.0.59, which CopilotKit's runtime 1.74 pins
// (client-0.0.59/middleware.test.js). Each run goes through `runAgent()`, where the
// middleware chain runs, and a real AbstractAgent or HttpAgent (over HTTP on 127.0.0.1).
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";
import { Observable } from "rxjs";

const DIGEST = `sha256:${"a".repeat(64)}`;

/** A valid citation record of node `path`. */
export const record = (path, extra = {}) => ({
  package: { id: "https://example.com/kb", version: "1.0.0", digest: DIGEST, signed: false },
  node: { id: `https://example.com/kb#${path}`, path, type: "Note", ref: `https://example.com/kb@1.0.0#${path}` },
  text: `Text of ${path}.`,
  trust: { status: "stable", declaredVerified: [], attestedReviews: [], stale: false, inForce: true,
    superseded: false, contested: false },
  ...extra,
});
const A = record("a.md");
const B = record("b.md");

const started = { type: "RUN_STARTED", threadId: "thread-1", runId: "run-1" };
const finished = { type: "RUN_FINISHED", threadId: "thread-1", runId: "run-1" };
const call = (id, content, name = "moca_search") => [
  { type: "TOOL_CALL_START", toolCallId: id, toolCallName: name },
  { type: "TOOL_CALL_END", toolCallId: id },
  { type: "TOOL_CALL_RESULT", messageId: `tool-${id}`, toolCallId: id, content: JSON.stringify(content) },
];
const answer = (id, ...deltas) => [
  { type: "TEXT_MESSAGE_START", messageId: id, role: "assistant" },
  ...deltas.map((delta) => ({ type: "TEXT_MESSAGE_CONTENT", messageId: id, delta })),
  { type: "TEXT_MESSAGE_END", messageId: id },
];
const cited = (events) => events.filter((e) => e.type === "CUSTOM" && e.name === "moca.citations")
  .map((e) => ({ messageId: e.value.messageId,
    citations: e.value.citations.map((c) => [c.marker ?? null, c.record.node.path]) }));

/** Console warnings while `body` runs, and its result. */
async function warned(body) {
  const lines = [];
  const kept = [console.warn, console.debug];
  console.warn = (...args) => lines.push(args.map(String).join(" "));
  console.debug = () => {};
  try {
    return { result: await body(), lines };
  } finally {
    [console.warn, console.debug] = kept;
  }
}

/**
 * @param {{ client: typeof import("@ag-ui/client"), CitationMiddleware: any, instrument: any,
 *   MocaCitations: any, version: string }} given
 */
export function middlewareSuite({ client, CitationMiddleware, instrument, MocaCitations, version }) {
  const { AbstractAgent, HttpAgent } = client;

  /** An agent that sends `events`, each after `pause` ms (0: at once, in one task). */
  class Scripted extends AbstractAgent {
    constructor(events, pause = 0) {
      super({ threadId: "thread-1" });
      this.events = events;
      this.pause = pause;
    }

    run() {
      const { events, pause } = this;
      return new Observable((subscriber) => {
        let at = 0;
        let timer;
        const next = () => {
          while (at < events.length) {
            subscriber.next(structuredClone(events[at++]));
            if (pause) {
              timer = setTimeout(next, pause);
              return;
            }
          }
          subscriber.complete();
        };
        next();
        return () => clearTimeout(timer);
      });
    }

    /** As @ag-ui/mastra's MastraAgent clones: the same script, and the same Mastra agent. */
    clone() {
      const copy = super.clone();
      Object.assign(copy, { events: this.events, pause: this.pause, agent: this.agent });
      return copy;
    }
  }

  /** A Scripted agent that holds, as @ag-ui/mastra's MastraAgent holds a Mastra agent, one
   * whose `getMemory()` resolves to a memory (`memory`: true) or to none. */
  const remembering = (memory, events) => Object.assign(new Scripted(events),
    { agent: { getMemory: async () => (memory ? {} : undefined) } });

  /** The log lines that name `instrument(agent)` or `keptThread`, as the fix of an agent
   * with a thread of its own. */
  const fixes = (lines) => lines.filter((line) => /instrument\(agent\)|keptThread/.test(line));

  /** Every event the agent's subscribers see, and the store's value per message. */
  async function runThrough(agent, input = {}) {
    const store = new MocaCitations();
    const seen = [];
    agent.subscribe(store.subscriber());
    await agent.runAgent(input, { onEvent: ({ event }) => void seen.push(event) });
    return { seen, store };
  }

  test(`${version}: runAgent sends one event per answer after its end, before RUN_FINISHED; the store attaches it`, async () => {
    const agent = new Scripted([started, ...call("c1", { results: [A, B] }),
      ...answer("m1", "Per [2] and [1]."), finished]).use(new CitationMiddleware());
    const { seen, store } = await runThrough(agent);
    assert.deepEqual(seen.map((e) => e.type).slice(-3), ["TEXT_MESSAGE_END", "CUSTOM", "RUN_FINISHED"]);
    assert.deepEqual(cited(seen), [{ messageId: "m1", citations: [["[2]", "b.md"], ["[1]", "a.md"]] }]);
    assert.deepEqual(store.get("m1").citations.map((c) => c.record.node.path), ["b.md", "a.md"]);
  });

  test(`${version}: agent.use on an agent with a memory of its own: left out where the client hands the agent, else logged`, async () => {
    const events = [started, ...call("c1", { results: [A, B] }), ...answer("m1", "Per [2]."), finished];
    const middleware = new CitationMiddleware();
    const { result, lines } = await warned(async () => [
      await runThrough(remembering(true, events).use(middleware)),
      await runThrough(remembering(true, events).use(middleware)),
    ]);
    // 0.0.59 hands the innermost middleware the agent itself: markers left out, each run; 1.x
    // a link of its chain: the request's thread counts, and once per middleware it says so
    const handsAgent = version.includes("0.0.59");
    for (const { seen } of result) {
      assert.deepEqual(cited(seen), [{ messageId: "m1", citations: handsAgent ? [] : [["[2]", "b.md"]] }]);
    }
    assert.equal(fixes(lines).length, handsAgent ? 2 : 1, lines.join("\n"));
    if (!handsAgent) assert.match(fixes(lines)[0], /not handed the agent.*instrument\(agent\).*keptThread/);
  });

  test(`${version}: instrument(agent) tells an agent with a memory of its own, and one without`, async () => {
    const events = [started, ...call("c1", { results: [A, B] }), ...answer("m1", "Per [2] and ", B.node.ref, "."), finished];
    const own = remembering(true, events);
    const { result, lines } = await warned(() => runThrough(instrument(own)));
    // the versioned ref is cited, the default marker left out: logged once, naming keptThread
    assert.deepEqual(cited(result.seen), [{ messageId: "m1", citations: [[null, "b.md"]] }]);
    assert.equal(fixes(lines).length, 1, lines.join("\n"));
    assert.match(fixes(lines)[0], /thread of its own/);
    const none = await warned(() => runThrough(instrument(remembering(false, events))));
    assert.deepEqual(cited(none.result.seen), [{ messageId: "m1", citations: [["[2]", "b.md"]] }]);
    assert.deepEqual(none.lines, []);
  });

  test(`${version}: instrument is idempotent, returns the agent, and a clone's run is judged as the agent's`, async () => {
    const events = [started, ...call("c1", { results: [A, B] }), ...answer("m1", "Per [2]."), finished];
    const agent = remembering(true, events);
    assert.equal(instrument(instrument(agent, { includeText: false })), agent);
    const { result, lines } = await warned(() => runThrough(agent));
    assert.deepEqual(cited(result.seen), [{ messageId: "m1", citations: [] }]);
    // one middleware: one event, one line (a second would log its own)
    assert.equal(result.seen.filter((e) => e.name === "moca.citations").length, 1);
    assert.equal(fixes(lines).length, 1, lines.join("\n"));
    // a per-request clone (as CopilotKit's runtime runs an agent) shares the middleware
    const clone = agent.clone();
    assert.equal(instrument(clone), clone);
    const cloned = await warned(() => runThrough(clone));
    assert.deepEqual(cited(cloned.result.seen), [{ messageId: "m1", citations: [] }]);
    assert.equal(fixes(cloned.lines).length, 1, cloned.lines.join("\n"));
    // and one without memory, cloned, numbers over the request's thread
    const plain = instrument(remembering(false, events)).clone();
    const counted = await warned(() => runThrough(plain));
    assert.deepEqual(cited(counted.result.seen), [{ messageId: "m1", citations: [["[2]", "b.md"]] }]);
    assert.deepEqual(counted.lines, []);
  });

  /** As @ag-ui/mastra's MastraAgent clones: a new agent from its config, no middleware. */
  class Forgetful extends Scripted {
    clone() {
      return Object.assign(new Forgetful(this.events, this.pause), { agent: this.agent });
    }
  }

  test(`${version}: instrument(agent): a clone that keeps no middleware cites, with the same options, and its clones too`, async () => {
    const events = [started, ...call("c1", { results: [A, B] }), ...answer("m1", "Per [2]."), finished];
    const texts = (seen) => seen.filter((e) => e.name === "moca.citations")
      .map((e) => e.value.citations.map((c) => c.record.text ?? null));
    // agent.use: the clone has no middleware, so it cites nothing (docs/typescript.md)
    const used = new Forgetful(events).use(new CitationMiddleware());
    assert.deepEqual(cited((await runThrough(used.clone())).seen), []);
    const classClone = Forgetful.prototype.clone;
    const agent = instrument(new Forgetful(events), { includeText: false });
    const clone = agent.clone();
    const { seen } = await runThrough(clone);
    assert.deepEqual(cited(seen), [{ messageId: "m1", citations: [["[2]", "b.md"]] }]);
    assert.deepEqual(texts(seen), [[null]]); // the options instrument was given
    const twice = await runThrough(clone.clone().clone());
    assert.deepEqual(cited(twice.seen), [{ messageId: "m1", citations: [["[2]", "b.md"]] }]);
    assert.deepEqual(texts(twice.seen), [[null]]);
    assert.equal(instrument(clone, { includeText: true }), clone);
    assert.deepEqual(texts((await runThrough(clone)).seen), [[null]]); // once, its options kept
    // on the instance, never its class: another agent's clone cites nothing
    assert.ok(Object.hasOwn(agent, "clone"));
    assert.equal(Forgetful.prototype.clone, classClone);
    assert.deepEqual(cited((await runThrough(new Forgetful(events).clone())).seen), []);
  });

  test(`${version}: instrument(agent): a clone that copies the chain cites once, judged as itself`, async () => {
    const events = [started, ...call("c1", { results: [A, B] }), ...answer("m1", "Per [2] and ", B.node.ref, "."), finished];
    const agent = instrument(remembering(false, events));
    const clone = agent.clone();
    const { result, lines } = await warned(() => runThrough(clone.clone()));
    assert.deepEqual(cited(result.seen), [{ messageId: "m1", citations: [["[2]", "b.md"]] }]);
    assert.deepEqual(lines, []);
    // a clone that holds a Mastra agent with memory of its own is judged by it, not by the
    // agent it was cloned from: its default markers are left out
    const own = Object.assign(agent.clone(), { agent: { getMemory: async () => ({}) } });
    const judged = await warned(() => runThrough(own));
    assert.deepEqual(cited(judged.result.seen), [{ messageId: "m1", citations: [[null, "b.md"]] }]);
    assert.equal(fixes(judged.lines).length, 1, judged.lines.join("\n"));
  });

  test(`${version}: instrument(agent): a clone that is no agent is returned as it is, and logged`, async () => {
    class Odd extends Scripted {
      clone() {
        return { copy: true };
      }
    }
    const { result, lines } = await warned(() => instrument(new Odd([])).clone());
    assert.deepEqual(result, { copy: true });
    assert.equal(lines.length, 1);
    assert.match(lines[0], /^moca-agui: a clone of the agent was not instrumented, so it cites nothing: instrument takes/);
  });

  test(`${version}: instrument takes an agent, and checks its options`, () => {
    assert.throws(() => instrument({}), /instrument takes an AbstractAgent/);
    assert.throws(() => instrument(null), /instrument takes an AbstractAgent/);
    assert.throws(() => instrument(new Scripted([]), { readerTool: [] }), /unknown moca-agui option\(s\) readerTool/);
  });

  test(`${version}: one instance serves concurrent runs, each with its own sources`, async () => {
    const middleware = new CitationMiddleware();
    const first = new Scripted([started, ...call("c1", { results: [A] }), ...answer("m1", "[1]"), finished], 3)
      .use(middleware);
    const second = new Scripted([started, ...call("c2", { results: [B] }), ...answer("m2", "[1]"), finished], 2)
      .use(middleware);
    const [one, two] = await Promise.all([runThrough(first), runThrough(second)]);
    assert.deepEqual(cited(one.seen), [{ messageId: "m1", citations: [["[1]", "a.md"]] }]);
    assert.deepEqual(cited(two.seen), [{ messageId: "m2", citations: [["[1]", "b.md"]] }]);
  });

  test(`${version}: chunked text and tool calls are followed as the client expands them`, async () => {
    const agent = new Scripted([started,
      { type: "TOOL_CALL_CHUNK", toolCallId: "c1", toolCallName: "moca_search", delta: "{}" },
      { type: "TOOL_CALL_RESULT", messageId: "t1", toolCallId: "c1", content: JSON.stringify({ results: [A, B] }) },
      { type: "TEXT_MESSAGE_CHUNK", messageId: "m1", role: "assistant", delta: "See [" },
      { type: "TEXT_MESSAGE_CHUNK", delta: "2]." },
      finished]).use(new CitationMiddleware());
    const { seen } = await runThrough(agent);
    assert.deepEqual(cited(seen), [{ messageId: "m1", citations: [["[2]", "b.md"]] }]);
  });

  test(`${version}: markers count over the request's thread; an earlier source comes from lookup`, async () => {
    const thread = [
      { id: "u1", role: "user", content: "Q?" },
      { id: "a1", role: "assistant", toolCalls: [{ id: "t1", type: "function", function: { name: "moca_search", arguments: "{}" } }] },
      { id: "r1", role: "tool", toolCallId: "t1", content: JSON.stringify({ results: [A] }) },
      { id: "a2", role: "assistant", content: "Per [1]." },
      { id: "u2", role: "user", content: "And?" },
    ];
    const asked = [];
    const lookup = async (ref) => {
      asked.push(ref);
      return ref === A.node.ref ? A : null;
    };
    const agent = new Scripted([started, ...call("c1", { results: [B] }), ...answer("m1", "[2], as [1] said."), finished]);
    agent.setMessages(thread);
    agent.use(new CitationMiddleware({ lookup }));
    const { seen } = await runThrough(agent);
    assert.deepEqual(cited(seen), [{ messageId: "m1", citations: [["[2]", "b.md"], ["[1]", "a.md"]] }]);
    assert.deepEqual(asked, [A.node.ref]);
  });

  test(`${version}: an answer's lookups start at its end, before the run finishes`, async () => {
    const happened = [];
    const lookup = async (ref) => {
      happened.push("looked up");
      return ref === A.node.ref ? A : null;
    };
    const events = [started, ...call("c1", { results: [{ ref: A.node.ref }] }), ...answer("m1", "See [1]."),
      { type: "STATE_SNAPSHOT", snapshot: {} }, finished];
    const agent = new Scripted(events, 5).use(new CitationMiddleware({ lookup }));
    agent.subscribe({ onStateSnapshotEvent: () => void happened.push("state snapshot") });
    const { seen } = await runThrough(agent);
    assert.deepEqual(happened, ["looked up", "state snapshot"]);
    assert.deepEqual(cited(seen), [{ messageId: "m1", citations: [["[1]", "a.md"]] }]);
  });

  test(`${version}: a snapshot's answer carries the value on metadata, the events after it wait in order`, async () => {
    let release;
    const gate = new Promise((resolve) => { release = resolve; });
    const lookup = async () => {
      await gate;
      return A;
    };
    const question = { id: "user-1", role: "user", content: "Q?" };
    const agent = new Scripted([started, ...call("c1", { results: [{ ref: A.node.ref }] }), ...answer("m1", "See [1]."),
      { type: "MESSAGES_SNAPSHOT", messages: [question, { id: "m1", role: "assistant", content: "See [1]." }] },
      { type: "STATE_SNAPSHOT", snapshot: { after: true } }, finished]);
    agent.setMessages([question]);
    agent.use(new CitationMiddleware({ lookup }));
    setTimeout(() => release(), 20);
    const { seen } = await runThrough(agent);
    assert.deepEqual(seen.map((e) => e.type).slice(-4), ["MESSAGES_SNAPSHOT", "STATE_SNAPSHOT", "CUSTOM", "RUN_FINISHED"]);
    const carried = seen.find((e) => e.type === "MESSAGES_SNAPSHOT").messages[1].metadata["moca.citations"];
    assert.deepEqual(carried.citations, [{ marker: "[1]", record: A }]);
    assert.deepEqual(agent.messages.find((m) => m.id === "m1").metadata["moca.citations"], carried);
  });

  test(`${version}: an upstream moca.citations is passed through, never cited twice`, async () => {
    const upstream = { type: "CUSTOM", name: "moca.citations",
      value: { version: 1, messageId: "m1", citations: [{ marker: "[1]", record: A }] } };
    const agent = new Scripted([started, ...call("c1", { results: [A] }), ...answer("m1", "[1]"), upstream, finished])
      .use(new CitationMiddleware());
    const { seen } = await runThrough(agent);
    const events = seen.filter((e) => e.type === "CUSTOM");
    assert.equal(events.length, 1);
    assert.deepEqual(JSON.parse(JSON.stringify(events[0])), upstream);
  });

  test(`${version}: a lookup that throws is logged, and the answer flows on uncited`, async () => {
    const lookup = () => { throw new Error("Reader down"); };
    const agent = new Scripted([started, ...call("c1", { results: [{ ref: A.node.ref }] }), ...answer("m1", "[1]"), finished])
      .use(new CitationMiddleware({ lookup }));
    const { result, lines } = await warned(() => runThrough(agent));
    assert.deepEqual(cited(result.seen), [{ messageId: "m1", citations: [] }]);
    assert.equal(result.seen.at(-1).type, "RUN_FINISHED");
    assert.ok(lines.some((line) => line.includes("lookup failed") && line.includes("Reader down")), lines.join("\n"));
  });

  test(`${version}: through an HttpAgent, events from a server pass unchanged, plus the citations`, async () => {
    const events = [started, ...call("c1", { results: [A] }), ...answer("m1", "See [1]."), finished];
    const server = createServer((request, response) => {
      request.resume();
      request.on("end", () => {
        response.writeHead(200, { "content-type": "text/event-stream" });
        for (const event of events) response.write(`data: ${JSON.stringify(event)}\n\n`);
        response.end();
      });
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const agent = new HttpAgent({ url: `http://127.0.0.1:${server.address().port}/` });
      agent.use(new CitationMiddleware());
      const { seen, store } = await runThrough(agent);
      const sent = seen.filter((e) => !(e.type === "CUSTOM"));
      assert.deepEqual(JSON.parse(JSON.stringify(sent)), events);
      assert.deepEqual(cited(seen), [{ messageId: "m1", citations: [["[1]", "a.md"]] }]);
      assert.equal(store.get("m1").citations.length, 1);
    } finally {
      server.close();
    }
  });

  test(`${version}: unknown options and wrong types are a TypeError`, () => {
    assert.throws(() => new CitationMiddleware({ readerTool: ["x"] }), /unknown moca-agui option\(s\) readerTool/);
    assert.throws(() => new CitationMiddleware({ readerTools: "moca_search" }), /collection of strings/);
    assert.throws(() => new CitationMiddleware({ lookup: 1 }), /lookup must be a function/);
    assert.throws(() => new CitationMiddleware({ maxLookups: 0 }), /positive integer/);
  });
}
