// The tests' offline model: the AI SDK's own mock model (ai/test), scripted as the Python
// demo's model is: a Reader search for the question, then an answer that cites what came
// back with the default markers: `[n]` is the n-th node the model received in the thread it
// was given, in the order it first received each.
import { MockLanguageModelV3 } from "ai/test";

export const HANDBOOK = "https://example.org/moca/fernhollow-apiary@3.0.0#";

/** question -> the model's search and its answer; `{path}` becomes the marker of that node. */
export const SCRIPT = {
  "Do I need to register my hives?": {
    search: { query: "register hives", limit: 3, detail: "full" },
    answer: "Yes. Register every apiary with the town clerk before 1 April each year; it is "
      + "free for up to four hives {hive-registration.md}. Keep each hive at least eight "
      + "metres from a public footpath as well {hive-placement.md}.\n"
      + "In code, `[1]` is not a marker.",
  },
  "What should I do about a swarm?": {
    search: { query: "swarm", limit: 3, detail: "full", include_all: true },
    answer: "Shake the cluster into a ventilated box and leave it open until dusk "
      + "{swarm-collection.md}; register the new hive too {hive-registration.md}.",
  },
};

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A model that calls the tool whose name ends in `moca_search` for the last question, then
 * answers it from what the thread's tool results hold, as `scripts` (default SCRIPT) say. */
export function scriptedModel(scripts = SCRIPT) {
  return new MockLanguageModelV3({
    doStream: async ({ prompt, tools = [] }) => {
      const lastUser = prompt.findLastIndex((message) => message.role === "user");
      const script = scripts[textOf(prompt[lastUser])];
      if (!script) throw new Error(`no script for ${JSON.stringify(prompt[lastUser])}`);
      const searched = prompt.slice(lastUser + 1).some((message) => message.role === "tool");
      const parts = searched ? answer(script.answer, receivedRefs(prompt)) : searchCall(tools, script.search);
      return { stream: streamOf([{ type: "stream-start", warnings: [] }, ...parts]) };
    },
  });
}

function textOf(message) {
  const { content } = message;
  return typeof content === "string" ? content : content.map((part) => part.text ?? "").join("");
}

function searchCall(tools, search) {
  const tool = tools.find((t) => t.name.endsWith("moca_search"));
  if (!tool) throw new Error(`no moca_search among the tools: ${tools.map((t) => t.name)}`);
  const id = uniqueId("call");
  const input = JSON.stringify(search);
  return [
    { type: "tool-input-start", id, toolName: tool.name },
    { type: "tool-input-delta", id, delta: input },
    { type: "tool-input-end", id },
    { type: "tool-call", toolCallId: id, toolName: tool.name, input },
    { type: "finish", usage: USAGE, finishReason: { unified: "tool-calls", raw: undefined } },
  ];
}

/** The answer `template` with each `{path}` as the marker of that node among `received`. */
export function answerText(template, received) {
  return template.replace(/\{([^{}]+)\}/g, (_, path) => {
    const index = received.indexOf(HANDBOOK + path);
    if (index < 0) throw new Error(`the model was shown no ${path}: ${received}`);
    return `[${index + 1}]`;
  });
}

function answer(template, received) {
  const text = answerText(template, received);
  const id = uniqueId("text");
  return [
    { type: "text-start", id },
    ...text.match(/[^ ]+ */g).map((delta) => ({ type: "text-delta", id, delta })), // word by word
    { type: "text-end", id },
    { type: "finish", usage: USAGE, finishReason: { unified: "stop", raw: undefined } },
  ];
}

/** The refs of the nodes in the prompt's tool results, in the order first received. */
function receivedRefs(prompt) {
  const refs = [];
  for (const message of prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type !== "tool-result") continue;
      const { output } = part;
      const value = output.type === "content" ? { content: output.value } : toJson(output.value);
      for (const ref of nodeRefs(value)) if (!refs.includes(ref)) refs.push(ref);
    }
  }
  return refs;
}

export function toJson(value) {
  if (typeof value !== "string") return value;
  try { return JSON.parse(value); } catch { return null; }
}

/** The node refs of a Reader result, bare or as an MCP tool result (`content` text items). */
export function nodeRefs(value) {
  if (!value || typeof value !== "object") return [];
  if (Array.isArray(value.content)) {
    return value.content.flatMap((item) => item.type === "text" ? nodeRefs(toJson(item.text)) : []);
  }
  return (value.results ?? []).map((result) => result.node?.ref ?? result.ref);
}

let count = 0;
export function uniqueId(prefix) {
  count += 1;
  return `${prefix}-${process.pid}-${count}`;
}

function streamOf(parts) {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}
