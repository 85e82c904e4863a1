// What the agent tests share: the demo's Reader over MCP stdio, a run collected with
// @ag-ui/client and the package's own store, and the events a cited answer must give.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";

import { MocaCitations, isRfc3339, locateMarkers, readCitations } from "moca-agui";

import { HANDBOOK, SCRIPT, nodeRefs } from "./model.js";

/** The Python of moca-agui's environment: $MOCA_AGUI_PYTHON, else the one on PATH (nox's). */
const PYTHON = execFileSync(process.env.MOCA_AGUI_PYTHON || "python",
  ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();

/** The demo's Reader as an MCP server over stdio (`python -m moca_agui.demo.reader`). */
export const READER = { command: PYTHON, args: ["-m", "moca_agui.demo.reader"] };

export const [REGISTER, SWARM] = Object.keys(SCRIPT);

/** The Reader tools' names as Mastra's MCPClient.listTools() gives them (`<server>_<tool>`). */
export function serverTools(server) {
  return ["moca_search", "moca_get_node", "moca_structure"].map((tool) => `${server}_${tool}`);
}

/** Ask `agent` each of `questions` in one thread, with `runAgent()`, as a UI does: every
 * event and the store's view of them. */
export async function ask(agent, questions) {
  const store = new MocaCitations();
  agent.subscribe(store.subscriber());
  const runs = [];
  for (const question of questions) {
    agent.addMessage({ id: `user-${runs.length + 1}`, role: "user", content: question });
    const events = [];
    await agent.runAgent({}, { onEvent: ({ event }) => { events.push(event); } });
    runs.push(events);
  }
  return { runs, store, messages: agent.messages };
}

/** Events of a run's state, beside its messages: an agent may send any number of them. */
const STATE = new Set(["RAW", "STATE_SNAPSHOT", "STATE_DELTA", "STEP_STARTED", "STEP_FINISHED", "MESSAGES_SNAPSHOT"]);

/**
 * One run's events as a cited answer of the scripted model gives them: the agent's search,
 * its result, the answer, then exactly one `moca.citations` naming the answer, with the
 * records of this run's result as the Reader produced them, in order of first mention.
 * `cited` is [marker, path] of each expected citation (marker null: a versioned ref's, none).
 */
export function assertCitedRun(events, cited) {
  const shown = events.filter((event) => !STATE.has(event.type) && event.type !== "TEXT_MESSAGE_CONTENT");
  assert.deepEqual(shown.map((event) => event.type), [
    "RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT",
    "TEXT_MESSAGE_START", "TEXT_MESSAGE_END", "CUSTOM", "RUN_FINISHED",
  ]); // the citations after the answer's end, before the run's
  const answerId = shown[6].messageId;
  const records = resultRecords(shown[4]);
  const { value: { computedAt, ...value }, ...citation } = shown[7];
  assert.deepEqual(citation, { type: "CUSTOM", name: "moca.citations" });
  assert.deepEqual(value, {
    version: 1,
    messageId: answerId,
    citations: cited.map(([marker, path]) => ({
      ...(marker === null ? {} : { marker }), record: records.get(HANDBOOK + path) })),
  });
  assert.ok(isRfc3339(computedAt), computedAt);
}

/** The store holds each run's citations on its answer, and the answer's text shows each
 * marker where the model wrote it (the one in code is no mention). */
export function assertStored({ runs, store, messages }) {
  for (const events of runs) {
    const { value } = events.find((event) => event.name === "moca.citations");
    const { messageId, ...citations } = readCitations(value);
    assert.deepEqual(store.get(messageId), citations);
    const answer = messages.find((message) => message.id === messageId);
    assert.equal(answer?.role, "assistant");
    const shown = locateMarkers(answer.content, citations.citations)
      .map(({ start, end, citation }) => [answer.content.slice(start, end), citation.record.node.ref]);
    assert.deepEqual(shown, citations.citations.map(({ marker, record }) => [marker, record.node.ref]));
  }
}

/** ref -> record of the records in a Reader result's JSON, bare or as an MCP tool result. */
function resultRecords(event) {
  const result = JSON.parse(event.content);
  const search = Array.isArray(result.content) ? JSON.parse(result.content[0].text) : result;
  const records = new Map(search.results.map((record) => [record.node.ref, record]));
  assert.deepEqual([...records.keys()], nodeRefs(result));
  return records;
}

/**
 * The `moca-agui demo` service of the bare AG-UI SDK without moca-agui: the same agent and
 * Reader, answers with no citations. Resolves to { url, stop } once it listens.
 */
export async function startBareDemo() {
  const script = `
import sys
from ag_ui.core import RunAgentInput
from ag_ui.encoder import EventEncoder
from fastapi import FastAPI
from fastapi.responses import StreamingResponse
from moca_agui.demo.frameworks.ag_ui import run_agent
from moca_agui.demo.reader import DemoReader
from moca_agui.demo.server import listen, serve

reader, app = DemoReader(), FastAPI()

@app.post("/")
async def endpoint(input_data: RunAgentInput) -> StreamingResponse:
    encoder = EventEncoder()
    events = (encoder.encode(event) async for event in run_agent(input_data, reader))
    return StreamingResponse(events, media_type=encoder.get_content_type())

with listen(0) as listener:
    print(f"bare: http://127.0.0.1:{listener.getsockname()[1]}/", file=sys.stderr, flush=True)
    serve(app, listener)
`;
  return startService(PYTHON, ["-c", script], /bare: (http:\/\/127\.0\.0\.1:\d+\/)/);
}

/** Start `command` and resolve to { url, stop } once its output shows the URL `listening`
 * captures; rejects with its output if it exits first. */
export async function startService(command, args, listening) {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const url = await new Promise((resolve, reject) => {
    const read = (chunk) => {
      output += chunk;
      const match = listening.exec(output);
      if (match) resolve(match[1]);
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.on("exit", (code) => reject(new Error(`${command} exited ${code}:\n${output}`)));
  });
  const stop = () => new Promise((resolve) => {
    child.removeAllListeners("exit");
    child.on("exit", resolve);
    child.kill("SIGINT");
  });
  return { url, stop };
}
