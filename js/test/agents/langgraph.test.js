// A LangGraph.js graph (tool-calling loop, a scripted LangChain chat model, the demo's Reader
// over MCP stdio through @langchain/mcp-adapters) served by LangGraph's own local API server
// (@langchain/langgraph-api) on 127.0.0.1, reached through @ag-ui/langgraph's LangGraphAgent
// with `agent.use(new CitationMiddleware())`.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { LangGraphAgent } from "@ag-ui/langgraph";
import { CitationMiddleware } from "moca-agui/middleware";

import { REGISTER, SWARM, ask, assertCitedRun, assertStored, startService } from "./support.js";

let server, files;
before(async () => {
  const serve = new URL("./langgraph/serve.js", import.meta.url).pathname;
  files = mkdtempSync(join(tmpdir(), "moca-agui-langgraph-"));
  server = await startService(process.execPath, [serve, files], /langgraph: (http:\/\/127\.0\.0\.1:\d+)/);
});
after(async () => {
  await server?.stop();
  rmSync(files, { force: true, recursive: true });
});

test("LangGraph.js: one moca.citations per answer, also on the answer in its snapshot", async () => {
  const agent = new LangGraphAgent({ deploymentUrl: server.url, graphId: "agent" });
  agent.use(new CitationMiddleware());
  const asked = await ask(agent, [REGISTER, SWARM]);
  assertCitedRun(asked.runs[0], [["[1]", "hive-registration.md"], ["[2]", "hive-placement.md"]]);
  assertCitedRun(asked.runs[1], [["[3]", "swarm-collection.md"], ["[1]", "hive-registration.md"]]);
  assertStored(asked);
  for (const events of asked.runs) {
    const { value } = events.find((event) => event.name === "moca.citations");
    const snapshot = events.findLast((event) => event.type === "MESSAGES_SNAPSHOT");
    const answer = snapshot.messages.find((message) => message.id === value.messageId);
    assert.deepEqual(answer.metadata["moca.citations"], value);
  }
});
