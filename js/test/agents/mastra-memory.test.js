// A Mastra agent with memory through @ag-ui/mastra: its model reads the thread its memory
// recalls, not the request's, and the client sends only each new question. The middleware,
// handed that agent (as @ag-ui/client 0.0.59 hands the innermost middleware the agent
// itself), never cites a wrong source: without keptThread, default markers are left out.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { MastraAgent } from "@ag-ui/mastra";
import { Agent } from "@mastra/core/agent";
import { InMemoryStore } from "@mastra/core/storage";
import { MCPClient } from "@mastra/mcp";
import { Memory } from "@mastra/memory";
import { lastValueFrom, toArray } from "rxjs";
import { CitationMiddleware } from "moca-agui/middleware";

import { scriptedModel } from "./model.js";
import { READER, REGISTER, SWARM, serverTools } from "./support.js";

let mcp;
before(() => { mcp = new MCPClient({ id: "moca-agui-memory-test", servers: { reader: READER } }); });
after(async () => { await mcp?.disconnect(); });

/** The AG-UI agent of a Mastra agent whose memory (in memory) keeps each thread. */
async function rememberingAgent() {
  const agent = new Agent({
    id: "moca-memory", name: "moca-memory", instructions: "Answer from the Reader, citing its nodes.",
    model: scriptedModel(), tools: await mcp.listTools(),
    memory: new Memory({ storage: new InMemoryStore() }),
  });
  return new MastraAgent({ agent, resourceId: "moca-agui-test" });
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
