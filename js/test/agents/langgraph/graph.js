// The LangGraph.js agent the tests serve: a tool-calling loop over the demo's Reader (MCP
// stdio, @langchain/mcp-adapters) and the scripted chat model. Its state is a StateSchema, so
// the server reads its schema from the graph, not by compiling this file's types.
import { MessagesValue, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";

import { READER } from "../support.js";
import { ScriptedChatModel } from "./chat-model.js";

const reader = new MultiServerMCPClient({
  mcpServers: { reader: { transport: "stdio", ...READER } },
  prefixToolNameWithServerName: false,
});
const tools = await reader.getTools();
const model = new ScriptedChatModel({}).bindTools(tools);

export const graph = new StateGraph(new StateSchema({ messages: MessagesValue }))
  .addNode("agent", async ({ messages }) => ({ messages: [await model.invoke(messages)] }))
  .addNode("tools", new ToolNode(tools))
  .addEdge(START, "agent")
  .addConditionalEdges("agent", toolsCondition)
  .addEdge("tools", "agent")
  .compile();
