// A Mastra agent through @ag-ui/mastra, the AI SDK's mock model, the demo's Reader over MCP
// stdio (@mastra/mcp): `instrument(agent, ...)` cites its answers, as `agent.use(new
// CitationMiddleware(...))` does.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { MastraAgent } from "@ag-ui/mastra";
import { Agent } from "@mastra/core/agent";
import { MCPClient } from "@mastra/mcp";
import { CitationMiddleware, instrument } from "moca-agui/middleware";

import { scriptedModel } from "./model.js";
import { READER, REGISTER, SWARM, ask, assertCitedRun, assertStored, serverTools } from "./support.js";

let mcp;
before(() => { mcp = new MCPClient({ id: "moca-agui-test", servers: { reader: READER } }); });
after(async () => { await mcp?.disconnect(); });

/** The AG-UI agent of a Mastra agent (no memory: it reads the request's thread). */
async function mastraAgent() {
  const agent = new Agent({
    id: "moca", name: "moca", instructions: "Answer from the Reader, citing its nodes.",
    model: scriptedModel(), tools: await mcp.listTools(),
  });
  return new MastraAgent({ agent, resourceId: "moca-agui-test" });
}

test("Mastra: one moca.citations per answer, numbered over the thread the model read", async () => {
  const agent = await mastraAgent();
  // Mastra names an MCP server's tools `<server>_<tool>`
  instrument(agent, { readerTools: serverTools("reader") });
  const asked = await ask(agent, [REGISTER, SWARM]);
  assertCitedRun(asked.runs[0], [["[1]", "hive-registration.md"], ["[2]", "hive-placement.md"]]);
  // the second search's nodes are the 3rd and 4th the model read; hive-registration its [1]
  assertCitedRun(asked.runs[1], [["[3]", "swarm-collection.md"], ["[1]", "hive-registration.md"]]);
  assertStored(asked);
});

test("Mastra: without a readerTools naming its tools, its results are no Reader's", async () => {
  const agent = await mastraAgent();
  agent.use(new CitationMiddleware());
  const { runs } = await ask(agent, [REGISTER]);
  const end = runs[0].findIndex((event) => event.type === "TEXT_MESSAGE_END");
  assert.deepEqual(runs[0].filter((event) => event.type === "CUSTOM"), [{
    type: "CUSTOM", name: "moca.citations",
    value: { version: 1, messageId: runs[0][end].messageId, citations: [] },
  }]); // "no sources", told apart from "not a MOCA service"
});
