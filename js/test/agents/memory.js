// A Mastra agent with memory through @ag-ui/mastra, as the agent tests build it: its model
// reads the thread its memory recalls, and a keptThread that gives the middleware that thread.
import { MastraAgent } from "@ag-ui/mastra";
import { Agent } from "@mastra/core/agent";
import { InMemoryStore } from "@mastra/core/storage";
import { Memory } from "@mastra/memory";

import { HANDBOOK, SCRIPT, scriptedModel } from "./model.js";

/** The AG-UI agent of a Mastra agent whose memory (in memory) keeps each thread. */
export async function rememberingAgent(mcp, scripts = SCRIPT) {
  const agent = new Agent({
    id: "moca-memory", name: "moca-memory", instructions: "Answer from the Reader, citing its nodes.",
    model: scriptedModel(scripts), tools: await mcp.listTools(),
    memory: new Memory({ storage: new InMemoryStore() }),
  });
  return new MastraAgent({ agent, resourceId: "moca-agui-test" });
}

/** A keptThread for `agent`: the thread its Mastra memory recalls, as AG-UI messages (each
 * tool invocation an assistant's tool call and its tool message, then the text). */
export function memoryThread(agent) {
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

/** The scripts, each answer naming one node of its own search by its versioned ref too. */
export const WITH_REFS = Object.fromEntries(Object.entries(SCRIPT).map(([question, script], turn) => {
  const path = ["hive-placement.md", "swarm-collection.md"][turn];
  return [question, { ...script, answer: `${script.answer} See ${HANDBOOK}${path} too` }];
}));

/** The lines `work` logged with console.warn (the middleware's warnings), and its result. */
export async function warningsDuring(work) {
  const warned = [];
  const kept = console.warn;
  console.warn = (...args) => warned.push(args.map(String).join(" "));
  try {
    return { result: await work(), warned };
  } finally {
    console.warn = kept;
  }
}
