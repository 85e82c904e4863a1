// CopilotKit's runtime (@copilotkit/runtime, @ag-ui/client 0.0.59 inside) served on 127.0.0.1,
// asked by an HttpAgent of @ag-ui/client 1.x as a UI asks it: its built-in agent (the AI
// SDK's mock model, the demo's Reader over MCP stdio through @ai-sdk/mcp) and HttpAgents to
// Python services with and without moca-agui, each with `agent.use(new CitationMiddleware())`;
// and Mastra agents with memory (@ag-ui/mastra on @ag-ui/client 1.x, the Reader through
// @mastra/mcp), with `instrument(agent)` and with `agent.use`: the runtime runs a clone of
// each agent per request, and a MastraAgent's clone keeps no middleware of its own.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";

import { HttpAgent } from "@ag-ui/client";
import { createMCPClient } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { BuiltInAgent, CopilotRuntime } from "@copilotkit/runtime/v2";
import { createCopilotNodeListener } from "@copilotkit/runtime/v2/node";
import { MCPClient } from "@mastra/mcp";
import { MocaCitations, readCitations } from "moca-agui";
import { CitationMiddleware, instrument } from "moca-agui/middleware";

import { startDemo } from "../demo.js";
import { WITH_REFS, memoryThread, rememberingAgent, warningsDuring } from "./memory.js";
import { scriptedModel } from "./model.js";
import { READER, REGISTER, SWARM, ask, assertCitedRun, assertStored, serverTools, startBareDemo } from "./support.js";

process.env.COPILOTKIT_TELEMETRY_DISABLED = "true";

const REGISTER_CITED = [["[1]", "hive-registration.md"], ["[2]", "hive-placement.md"]];

let mcp, mastraMcp, cited, bare, agents, server, base;
/** What the Python service with moca-agui sent the runtime: its SSE bodies. */
const upstream = [];

before(async () => {
  [mcp, cited, bare] = await Promise.all([
    createMCPClient({ transport: new Experimental_StdioMCPTransport(READER) }),
    startDemo("ag-ui"),
    startBareDemo(),
  ]);
  agents = {
    "built-in": new BuiltInAgent({ model: scriptedModel(), mcpClients: [mcp], maxSteps: 4 }),
    "python-cited": new HttpAgent({ url: cited.url, fetch: recording(upstream) }),
    "python-bare": new HttpAgent({ url: bare.url }),
  };
  for (const agent of Object.values(agents)) agent.use(new CitationMiddleware());
  mastraMcp = new MCPClient({ id: "moca-agui-copilotkit-test", servers: { reader: READER } });
  const readerTools = serverTools("reader");
  const [memory, kept, used] = await Promise.all([0, 1, 2].map(() => rememberingAgent(mastraMcp, WITH_REFS)));
  agents["mastra-memory"] = instrument(memory, { readerTools });
  agents["mastra-memory-kept"] = instrument(kept, { readerTools, keptThread: memoryThread(kept) });
  agents["mastra-memory-use"] = used.use(new CitationMiddleware({ readerTools }));
  const runtime = new CopilotRuntime({ agents });
  server = createServer(createCopilotNodeListener({ runtime, basePath: "/api/copilotkit" }));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}/api/copilotkit`;
});

after(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
  await Promise.all([mcp?.close(), mastraMcp?.disconnect(), cited?.stop(), bare?.stop()]);
});

/** A UI's agent: the runtime's agent `id`, over HTTP. */
function client(id) {
  return new HttpAgent({ url: `${base}/agent/${id}/run` });
}

/** A fetch that keeps (a promise of) the body of each answer it gets, as it came. */
function recording(bodies) {
  return async (url, init) => {
    const response = await fetch(url, init);
    const [kept, passed] = response.body.tee();
    bodies.push(new Response(kept).text());
    return new Response(passed, response);
  };
}

describe("CopilotKit runtime", () => {
  test("its built-in agent: one moca.citations per answer, numbered over the thread", async () => {
    // an agent of the @ag-ui/client CopilotKit pins; the HttpAgents are 1.x's
    const version = (agent) => agent.maxProtocolVersion ?? agent.maxVersion; // 1.x renamed it
    assert.deepEqual([version(agents["built-in"]), version(agents["python-bare"])], ["0.0.59", "1.0.0"]);
    const asked = await ask(client("built-in"), [REGISTER, SWARM]);
    assertCitedRun(asked.runs[0], REGISTER_CITED);
    assertCitedRun(asked.runs[1], [["[3]", "swarm-collection.md"], ["[1]", "hive-registration.md"]]);
    assertStored(asked);
  });

  test("an HttpAgent to a Python service without moca-agui: the middleware cites", async () => {
    const asked = await ask(client("python-bare"), [REGISTER]);
    assertCitedRun(asked.runs[0], REGISTER_CITED);
    assertStored(asked);
  });

  test("an HttpAgent to a Python service with moca-agui: its event passes, never twice", async () => {
    upstream.length = 0;
    const asked = await ask(client("python-cited"), [REGISTER]);
    assertCitedRun(asked.runs[0], REGISTER_CITED);
    assertStored(asked);
    // equal as JSON, keys in the same order (the text differs only where Python writes 7.0)
    const sent = (await Promise.all(upstream)).join("").split("\n")
      .filter((line) => line.startsWith("data: ")).map((line) => JSON.parse(line.slice(6)))
      .filter((event) => event.name === "moca.citations");
    const [got] = asked.runs[0].filter((event) => event.name === "moca.citations");
    assert.equal(sent.length, 1);
    assert.equal(JSON.stringify(got), JSON.stringify(sent[0]));
    // and the middleware in front of the same service without moca-agui cites alike
    const { runs } = await ask(client("python-bare"), [REGISTER]);
    const [own] = runs[0].filter((event) => event.name === "moca.citations");
    const { messageId, computedAt, ...value } = got.value;
    assert.deepEqual({ ...own.value, messageId, computedAt }, { ...value, messageId, computedAt });
  });
});

/** Each question in one thread of `client`, sending only that question, as a client of an
 * agent that keeps the thread itself sends it: each run's events, the store, and the
 * middleware's log lines (the runtime runs in this process). */
async function askOnly(client, questions) {
  const store = new MocaCitations();
  client.subscribe(store.subscriber());
  const runs = [];
  const { warned } = await warningsDuring(async () => {
    for (const [turn, question] of questions.entries()) {
      client.setMessages([{ id: `user-${turn + 1}`, role: "user", content: question }]);
      const events = [];
      await client.runAgent({}, { onEvent: ({ event }) => void events.push(event) });
      runs.push(events);
    }
  });
  return { runs, store, warned: warned.filter((line) => line.startsWith("moca-agui:")) };
}

/** The store holds each run's citations on its answer. */
function assertKept({ runs, store }) {
  for (const events of runs) {
    const { value } = events.find((event) => event.name === "moca.citations");
    const { messageId, ...citations } = readCitations(value);
    assert.deepEqual(store.get(messageId), citations);
  }
}

describe("CopilotKit runtime serving a Mastra agent with memory, the client sending each new question only", () => {
  test("instrument(agent): its clone cites; default markers left out, versioned refs cited", async () => {
    const asked = await askOnly(client("mastra-memory"), [REGISTER, SWARM]);
    // each answer wrote its markers over the memory's thread, and one versioned ref
    assertCitedRun(asked.runs[0], [[null, "hive-placement.md"]]);
    assertCitedRun(asked.runs[1], [[null, "swarm-collection.md"]]);
    assertKept(asked);
    assert.equal(asked.warned.filter((line) => line.includes("thread of its own")).length, 2,
      asked.warned.join("\n"));
  });

  test("instrument(agent) with a keptThread reading its memory: markers cited as the model wrote them", async () => {
    const asked = await askOnly(client("mastra-memory-kept"), [REGISTER, SWARM]);
    assertCitedRun(asked.runs[0], [["[1]", "hive-registration.md"], ["[2]", "hive-placement.md"]]);
    assertCitedRun(asked.runs[1], [["[3]", "swarm-collection.md"], ["[1]", "hive-registration.md"]]);
    assertKept(asked);
    assert.deepEqual(asked.warned, []);
  });

  test("agent.use: the runtime's clone of a MastraAgent keeps no middleware, so nothing is cited", async () => {
    const { runs, warned } = await askOnly(client("mastra-memory-use"), [REGISTER, SWARM]);
    for (const events of runs) {
      assert.equal(events.filter((event) => event.type === "TEXT_MESSAGE_END").length, 1);
      assert.deepEqual(events.filter((event) => event.type === "CUSTOM"), []);
    }
    assert.deepEqual(warned, []);
  });
});
