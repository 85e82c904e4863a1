// CopilotKit's runtime (@copilotkit/runtime, @ag-ui/client 0.0.59 inside) served on 127.0.0.1,
// each of its agents with `agent.use(new CitationMiddleware())`, asked by an HttpAgent of
// @ag-ui/client 1.x as a UI asks it: its built-in agent (the AI SDK's mock model, the demo's
// Reader over MCP stdio through @ai-sdk/mcp), and HttpAgents to Python services with and
// without moca-agui.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";

import { HttpAgent } from "@ag-ui/client";
import { createMCPClient } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { BuiltInAgent, CopilotRuntime } from "@copilotkit/runtime/v2";
import { createCopilotNodeListener } from "@copilotkit/runtime/v2/node";
import { CitationMiddleware } from "moca-agui/middleware";

import { startDemo } from "../demo.js";
import { scriptedModel } from "./model.js";
import { READER, REGISTER, SWARM, ask, assertCitedRun, assertStored, startBareDemo } from "./support.js";

process.env.COPILOTKIT_TELEMETRY_DISABLED = "true";

const REGISTER_CITED = [["[1]", "hive-registration.md"], ["[2]", "hive-placement.md"]];

let mcp, cited, bare, agents, server, base;
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
  const runtime = new CopilotRuntime({ agents });
  server = createServer(createCopilotNodeListener({ runtime, basePath: "/api/copilotkit" }));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}/api/copilotkit`;
});

after(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
  await Promise.all([mcp?.close(), cited?.stop(), bare?.stop()]);
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
