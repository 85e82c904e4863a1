// A Mastra agent with memory through @ag-ui/mastra: its model reads the thread its memory
// recalls, not the request's, and the client sends only each new question. The middleware,
// handed that agent (as @ag-ui/client 0.0.59 hands the innermost middleware the agent
// itself) or bound to it by instrument(agent) on @ag-ui/client 1.x, never cites a wrong
// source: without keptThread, default markers are left out; with a keptThread reading the
// agent's memory, they are cited as the model wrote them. `agent.use` on 1.x cannot see the
// agent: it numbers over the request's thread, and says so.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { MastraAgent } from "@ag-ui/mastra";
import { Agent } from "@mastra/core/agent";
import { InMemoryStore } from "@mastra/core/storage";
import { MCPClient } from "@mastra/mcp";
import { Memory } from "@mastra/memory";
import { lastValueFrom, toArray } from "rxjs";
import { CitationMiddleware, instrument } from "moca-agui/middleware";

import { HANDBOOK, SCRIPT, scriptedModel } from "./model.js";
import { READER, REGISTER, SWARM, serverTools } from "./support.js";

let mcp;
before(() => { mcp = new MCPClient({ id: "moca-agui-memory-test", servers: { reader: READER } }); });
after(async () => { await mcp?.disconnect(); });

/** The AG-UI agent of a Mastra agent whose memory (in memory) keeps each thread. */
async function rememberingAgent(scripts = SCRIPT) {
  const agent = new Agent({
    id: "moca-memory", name: "moca-memory", instructions: "Answer from the Reader, citing its nodes.",
    model: scriptedModel(scripts), tools: await mcp.listTools(),
    memory: new Memory({ storage: new InMemoryStore() }),
  });
  return new MastraAgent({ agent, resourceId: "moca-agui-test" });
}

/** A keptThread for `agent`: the thread its Mastra memory recalls, as AG-UI messages (each
 * tool invocation an assistant's tool call and its tool message, then the text). */
function memoryThread(agent) {
  return async (input) => {
    const memory = await agent.agent.getMemory();
    const thread = await memory.getThreadById({ threadId: input.threadId });
    if (!thread) return [];
    const { messages } = await memory.recall({ threadId: input.threadId, resourceId: agent.resourceId });
    return messages.flatMap(agUiMessages);
  };
}

/** One Mastra memory message as AG-UI messages. */
function agUiMessages({ id, role, content }) {
  const text = content.parts.filter((part) => part.type === "text").map((part) => part.text).join("");
  if (role !== "assistant") return [{ id, role, content: text }];
  const calls = content.parts.filter((part) => part.type === "tool-invocation").map((part) => part.toolInvocation);
  return [
    ...(calls.length ? [{ id: `${id}-calls`, role, toolCalls: calls.map((call) => ({ id: call.toolCallId,
      type: "function", function: { name: call.toolName, arguments: JSON.stringify(call.args) } })) }] : []),
    ...calls.filter((call) => call.state === "result").map((call) => ({ id: `${call.toolCallId}-result`,
      role: "tool", toolCallId: call.toolCallId, content: JSON.stringify(call.result) })),
    ...(text ? [{ id, role, content: text }] : []),
  ];
}

/** Each question in one thread, the request holding only that question (the agent's memory
 * holds the rest): [marker, path] of each run's citations, and what was logged. */
async function askEach(agent, middleware, questions) {
  const cited = [];
  const warned = [];
  const kept = console.warn;
  console.warn = (...args) => warned.push(args.map(String).join(" "));
  try {
    for (const [turn, question] of questions.entries()) {
      const input = { threadId: "thread-memory", runId: `run-${turn + 1}`, state: {}, tools: [],
        context: [], forwardedProps: {}, messages: [{ id: `user-${turn + 1}`, role: "user", content: question }] };
      const events = await lastValueFrom(middleware.run(input, agent).pipe(toArray()));
      const values = events.filter((event) => event.name === "moca.citations").map((event) => event.value);
      assert.equal(values.length, 1);
      cited.push(values[0].citations.map((c) => [c.marker ?? null, c.record.node.path]));
    }
  } finally {
    console.warn = kept;
  }
  return { cited, warned };
}

test("Mastra with memory, no keptThread: its default markers are left out, no wrong source", async () => {
  const middleware = new CitationMiddleware({ readerTools: serverTools("reader") });
  const { cited, warned } = await askEach(await rememberingAgent(), middleware, [REGISTER, SWARM]);
  // the model wrote [1] [2], then [3] [1] over its memory's thread: not one is cited
  assert.deepEqual(cited, [[], []]);
  assert.equal(warned.filter((line) => line.includes("keptThread")).length, 2, warned.join("\n"));
});

test("Mastra with memory and a keptThread reading its memory: markers cited as the model wrote them", async () => {
  const agent = await rememberingAgent();
  const middleware = new CitationMiddleware({ readerTools: serverTools("reader"), keptThread: memoryThread(agent) });
  const { cited, warned } = await askEach(agent, middleware, [REGISTER, SWARM]);
  assert.deepEqual(cited, [
    [["[1]", "hive-registration.md"], ["[2]", "hive-placement.md"]],
    // the memory's thread: hive-registration its [1], the new search's node its [3]
    [["[3]", "swarm-collection.md"], ["[1]", "hive-registration.md"]],
  ]);
  assert.deepEqual(warned.filter((line) => line.startsWith("moca-agui:")), []);
});

/** The scripts, each answer naming one node of its own search by its versioned ref too. */
const WITH_REFS = Object.fromEntries(Object.entries(SCRIPT).map(([question, script], turn) => {
  const path = ["hive-placement.md", "swarm-collection.md"][turn];
  return [question, { ...script, answer: `${script.answer} See ${HANDBOOK}${path} too` }];
}));

/** Each question in one thread through `agent.runAgent()` of @ag-ui/client 1.x, the client
 * sending only that question (the agent's memory holds the rest): [marker, path] of each
 * run's citations, and the log lines. */
async function runEach(agent, questions) {
  const cited = [];
  const warned = [];
  const kept = console.warn;
  console.warn = (...args) => warned.push(args.map(String).join(" "));
  try {
    for (const [turn, question] of questions.entries()) {
      agent.setMessages([{ id: `user-${turn + 1}`, role: "user", content: question }]);
      const events = [];
      await agent.runAgent({}, { onEvent: ({ event }) => void events.push(event) });
      const values = events.filter((event) => event.name === "moca.citations").map((event) => event.value);
      assert.equal(values.length, 1);
      cited.push(values[0].citations.map((c) => [c.marker ?? null, c.record.node.path]));
    }
  } finally {
    console.warn = kept;
  }
  return { cited, warned: warned.filter((line) => line.startsWith("moca-agui:")) };
}

test("@ag-ui/client 1.x, instrument(agent): default markers left out, versioned refs cited, no wrong source", async () => {
  const agent = await rememberingAgent(WITH_REFS);
  assert.equal(instrument(agent, { readerTools: serverTools("reader") }), agent);
  const { cited, warned } = await runEach(agent, [REGISTER, SWARM]);
  assert.deepEqual(cited, [[[null, "hive-placement.md"]], [[null, "swarm-collection.md"]]]);
  assert.equal(warned.filter((line) => line.includes("thread of its own")).length, 2, warned.join("\n"));
});

test("@ag-ui/client 1.x, instrument(agent) with a keptThread reading its memory: markers cited as the model wrote them", async () => {
  const agent = await rememberingAgent(WITH_REFS);
  instrument(agent, { readerTools: serverTools("reader"), keptThread: memoryThread(agent) });
  const { cited, warned } = await runEach(agent, [REGISTER, SWARM]);
  assert.deepEqual(cited, [
    [["[1]", "hive-registration.md"], ["[2]", "hive-placement.md"]],
    [["[3]", "swarm-collection.md"], ["[1]", "hive-registration.md"]],
  ]);
  assert.deepEqual(warned, []);
});

test("@ag-ui/client 1.x, agent.use: the request's thread counts, and the middleware says it cannot see the agent", async () => {
  const agent = await rememberingAgent(WITH_REFS);
  agent.use(new CitationMiddleware({ readerTools: serverTools("reader") }));
  const { cited, warned } = await runEach(agent, [REGISTER, SWARM]);
  // the first turn's memory is empty: the request's thread is the model's; the second turn's
  // model wrote [3] (swarm-collection) and [1] (hive-registration) over its memory's thread,
  // which the request does not hold: counted over the request's, each names the other
  assert.deepEqual(cited, [
    [["[1]", "hive-registration.md"], ["[2]", "hive-placement.md"]],
    [["[3]", "hive-registration.md"], ["[1]", "swarm-collection.md"]],
  ]);
  assert.equal(warned.length, 1, warned.join("\n"));
  assert.match(warned[0], /not handed the agent.*instrument\(agent\).*keptThread/);
});

test("@ag-ui/mastra 1.1.2: a MastraAgent's clone() keeps no middleware; instrumented, the clone is told", async () => {
  // CopilotKit's runtime runs a per-request clone; MastraAgent.clone() makes a new agent
  // from its config, without the middlewares (docs/typescript.md, Mastra)
  const agent = instrument(await rememberingAgent(WITH_REFS), { readerTools: serverTools("reader") });
  const clone = agent.clone();
  clone.setMessages([{ id: "user-1", role: "user", content: REGISTER }]);
  const events = [];
  await clone.runAgent({}, { onEvent: ({ event }) => void events.push(event) });
  assert.equal(events.filter((event) => event.name === "moca.citations").length, 0);
  const told = instrument(agent.clone(), { readerTools: serverTools("reader") });
  const { cited } = await runEach(told, [REGISTER]);
  assert.deepEqual(cited, [[[null, "hive-placement.md"]]]);
});
