// A Mastra agent with memory through @ag-ui/mastra: its model reads the thread its memory
// recalls, not the request's, and the client sends only each new question. The middleware,
// handed that agent (as @ag-ui/client 0.0.59 hands the innermost middleware the agent
// itself) or bound to it by instrument(agent) on @ag-ui/client 1.x, never cites a wrong
// source: without keptThread, default markers are left out; with a keptThread reading the
// agent's memory, they are cited as the model wrote them. `agent.use` on 1.x cannot see the
// agent: it numbers over the request's thread, and says so.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { MCPClient } from "@mastra/mcp";
import { lastValueFrom, toArray } from "rxjs";
import { CitationMiddleware, instrument } from "moca-agui/middleware";

import { WITH_REFS, memoryThread, rememberingAgent, warningsDuring } from "./memory.js";
import { READER, REGISTER, SWARM, serverTools } from "./support.js";

let mcp;
before(() => { mcp = new MCPClient({ id: "moca-agui-memory-test", servers: { reader: READER } }); });
after(async () => { await mcp?.disconnect(); });

/** Each question in one thread, the request holding only that question (the agent's memory
 * holds the rest): [marker, path] of each run's citations, and what was logged. */
async function askEach(agent, middleware, questions) {
  const cited = [];
  const { warned } = await warningsDuring(async () => {
    for (const [turn, question] of questions.entries()) {
      const input = { threadId: "thread-memory", runId: `run-${turn + 1}`, state: {}, tools: [],
        context: [], forwardedProps: {}, messages: [{ id: `user-${turn + 1}`, role: "user", content: question }] };
      const events = await lastValueFrom(middleware.run(input, agent).pipe(toArray()));
      const values = events.filter((event) => event.name === "moca.citations").map((event) => event.value);
      assert.equal(values.length, 1);
      cited.push(values[0].citations.map((c) => [c.marker ?? null, c.record.node.path]));
    }
  });
  return { cited, warned };
}

test("Mastra with memory, no keptThread: its default markers are left out, no wrong source", async () => {
  const middleware = new CitationMiddleware({ readerTools: serverTools("reader") });
  const { cited, warned } = await askEach(await rememberingAgent(mcp), middleware, [REGISTER, SWARM]);
  // the model wrote [1] [2], then [3] [1] over its memory's thread: not one is cited
  assert.deepEqual(cited, [[], []]);
  assert.equal(warned.filter((line) => line.includes("keptThread")).length, 2, warned.join("\n"));
});

test("Mastra with memory and a keptThread reading its memory: markers cited as the model wrote them", async () => {
  const agent = await rememberingAgent(mcp);
  const middleware = new CitationMiddleware({ readerTools: serverTools("reader"), keptThread: memoryThread(agent) });
  const { cited, warned } = await askEach(agent, middleware, [REGISTER, SWARM]);
  assert.deepEqual(cited, [
    [["[1]", "hive-registration.md"], ["[2]", "hive-placement.md"]],
    // the memory's thread: hive-registration its [1], the new search's node its [3]
    [["[3]", "swarm-collection.md"], ["[1]", "hive-registration.md"]],
  ]);
  assert.deepEqual(warned.filter((line) => line.startsWith("moca-agui:")), []);
});

/** Each question in one thread through `agent.runAgent()` of @ag-ui/client 1.x, the client
 * sending only that question (the agent's memory holds the rest): [marker, path] of each
 * run's citations, and the log lines. */
async function runEach(agent, questions) {
  const cited = [];
  const { warned } = await warningsDuring(async () => {
    for (const [turn, question] of questions.entries()) {
      agent.setMessages([{ id: `user-${turn + 1}`, role: "user", content: question }]);
      const events = [];
      await agent.runAgent({}, { onEvent: ({ event }) => void events.push(event) });
      const values = events.filter((event) => event.name === "moca.citations").map((event) => event.value);
      assert.equal(values.length, 1);
      cited.push(values[0].citations.map((c) => [c.marker ?? null, c.record.node.path]));
    }
  });
  return { cited, warned: warned.filter((line) => line.startsWith("moca-agui:")) };
}

test("@ag-ui/client 1.x, instrument(agent): default markers left out, versioned refs cited, no wrong source", async () => {
  const agent = await rememberingAgent(mcp, WITH_REFS);
  assert.equal(instrument(agent, { readerTools: serverTools("reader") }), agent);
  const { cited, warned } = await runEach(agent, [REGISTER, SWARM]);
  assert.deepEqual(cited, [[[null, "hive-placement.md"]], [[null, "swarm-collection.md"]]]);
  assert.equal(warned.filter((line) => line.includes("thread of its own")).length, 2, warned.join("\n"));
});

test("@ag-ui/client 1.x, instrument(agent) with a keptThread reading its memory: markers cited as the model wrote them", async () => {
  const agent = await rememberingAgent(mcp, WITH_REFS);
  instrument(agent, { readerTools: serverTools("reader"), keptThread: memoryThread(agent) });
  const { cited, warned } = await runEach(agent, [REGISTER, SWARM]);
  assert.deepEqual(cited, [
    [["[1]", "hive-registration.md"], ["[2]", "hive-placement.md"]],
    [["[3]", "swarm-collection.md"], ["[1]", "hive-registration.md"]],
  ]);
  assert.deepEqual(warned, []);
});

test("@ag-ui/client 1.x, agent.use: the middleware says once it cannot see the agent and names instrument(agent)", async () => {
  const agent = await rememberingAgent(mcp, WITH_REFS);
  agent.use(new CitationMiddleware({ readerTools: serverTools("reader") }));
  const { cited, warned } = await runEach(agent, [REGISTER, SWARM]);
  // it counts over the request's thread (docs/typescript.md), the model's only while the
  // memory is empty: the first turn. The second turn's model read its memory's thread, which
  // is why the docs name instrument(agent); no source of that turn is expected here.
  assert.deepEqual(cited[0], [["[1]", "hive-registration.md"], ["[2]", "hive-placement.md"]]);
  assert.equal(warned.length, 1, warned.join("\n"));
  assert.match(warned[0], /not handed the agent.*request's thread.*instrument\(agent\).*keptThread/);
});

test("@ag-ui/mastra 1.1.2: a MastraAgent's clone keeps no middleware; instrument(agent)'s clones cite", async () => {
  // CopilotKit's runtime runs a per-request clone; MastraAgent.clone() makes a new agent
  // from its config, without the middlewares (copilotkit.test.js serves such agents)
  const used = await rememberingAgent(mcp, WITH_REFS);
  used.use(new CitationMiddleware({ readerTools: serverTools("reader") }));
  const clone = used.clone();
  clone.setMessages([{ id: "user-1", role: "user", content: REGISTER }]);
  const events = [];
  await clone.runAgent({}, { onEvent: ({ event }) => void events.push(event) });
  assert.equal(events.filter((event) => event.name === "moca.citations").length, 0);
  const agent = instrument(await rememberingAgent(mcp, WITH_REFS), { readerTools: serverTools("reader") });
  const { cited, warned } = await runEach(agent.clone().clone(), [REGISTER, SWARM]);
  assert.deepEqual(cited, [[[null, "hive-placement.md"]], [[null, "swarm-collection.md"]]]);
  assert.equal(warned.filter((line) => line.includes("thread of its own")).length, 2, warned.join("\n"));
});
