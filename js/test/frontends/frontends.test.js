// The README's CopilotKit and assistant-ui snippets, as written, with the real packages, in
// a jsdom page, against a real `moca-agui demo`: the sources appear with the answer they cite.
// Run by `nox -s js-frontends`, with moca-agui installed from its packed tarball.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";

import { build } from "esbuild";
import { JSDOM } from "jsdom";

import { startDemo } from "../demo.js";

const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const HANDBOOK = "https://example.org/moca/fernhollow-apiary@3.0.0#";
const QUESTION = "Do I need to register my hives?";
const REFS = [HANDBOOK + "hive-registration.md", HANDBOOK + "hive-placement.md"];

// A browser's globals, from jsdom, before React and the frontends load.
const dom = new JSDOM("<!doctype html><body><div id=root></div></body>", {
  url: "http://localhost/", pretendToBeVisual: true,
});
for (const key of Object.getOwnPropertyNames(dom.window)) {
  if (!(key in globalThis) && !key.startsWith("_")) {
    Object.defineProperty(globalThis, key, { configurable: true, get: () => dom.window[key] });
  }
}
const { Event, HTMLTextAreaElement, KeyboardEvent, Node } = dom.window; // Node has its own Event
// jsdom lays nothing out, so it has no ResizeObserver: one that never fires is what it would do
globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} };
globalThis.IS_REACT_ACT_ENVIRONMENT = true;
const consoleError = console.error;
console.error = (...args) => { // the frontends' own updates after a run are not ours to wrap
  if (!String(args[0]).includes("not wrapped in act")) consoleError(...args);
};

const { HttpAgent } = await import("@ag-ui/client");
const { act, createElement } = await import("react");
const { createRoot } = await import("react-dom/client");

/** The README's snippet `name`, compiled (JSX) to a module in this directory; `edit` first. */
async function snippet(name, edit = (code) => code) {
  const match = new RegExp(`<!-- snippet: ${name} -->\\n\`\`\`jsx\\n([^]*?)\`\`\`\\n`).exec(README);
  assert.ok(match, `no snippet ${name} in js/README.md`);
  const dir = mkdtempSync(new URL("./.snippet-", import.meta.url).pathname);
  writeFileSync(`${dir}/snippet.jsx`, edit(match[1]));
  await build({ entryPoints: [`${dir}/snippet.jsx`], outfile: `${dir}/snippet.mjs`, format: "esm", jsx: "automatic", logLevel: "error" });
  const module = await import(`${dir}/snippet.mjs`);
  rmSync(dir, { recursive: true, force: true });
  return module;
}

/** Render `element` into a fresh root; returns the root and its container. */
async function mount(element) {
  const container = document.createElement("div");
  document.body.append(container);
  const root = createRoot(container);
  await act(async () => { root.render(element); });
  return { root, container };
}

/** A promise of the end of `agent`'s next run. */
function runEnd(agent) {
  return new Promise((resolve) => {
    const { unsubscribe } = agent.subscribe({ onRunFinalized: () => { unsubscribe(); resolve(); } });
  });
}

/** The sources the page shows, each after the text of the answer it belongs to. */
function shownAfterAnswer(container) {
  const answer = [...container.querySelectorAll("*")].findLast( // the innermost: markers are controls
    (e) => e.textContent.startsWith("Yes. Register every apiary"));
  assert.ok(answer, "the answer is shown");
  const sources = [...container.querySelectorAll("article.source")];
  for (const source of sources) {
    assert.ok(answer.compareDocumentPosition(source) & Node.DOCUMENT_POSITION_FOLLOWING);
  }
  return sources.map((s) => s.dataset.ref);
}

/** An HttpAgent whose service answers `events` (between RUN_STARTED and RUN_FINISHED). */
function scripted(events) {
  const run = { threadId: "t1", runId: "r1" };
  const body = [{ type: "RUN_STARTED", ...run }, ...events, { type: "RUN_FINISHED", ...run }]
    .map((event) => `data: ${JSON.stringify(event)}\n\n`).join("");
  const fetch = async () => new Response(body, { headers: { "Content-Type": "text/event-stream" } });
  return new HttpAgent({ url: "http://127.0.0.1:9/", fetch, threadId: "t1" });
}

/** The README's assistant-ui snippet in a thread over `agent`; asks `question`. */
async function assistantUi(agent, question) {
  const { MocaCitationsUI } = await snippet("assistant-ui");
  const { AssistantRuntimeProvider, MessagePrimitive, ThreadPrimitive } = await import("@assistant-ui/react");
  const { useAgUiRuntime } = await import("@assistant-ui/react-ag-ui");
  let runtime;
  function Message() {
    return createElement(MessagePrimitive.Root, null,
      createElement("div", { className: "message" }, createElement(MessagePrimitive.Parts)));
  }
  function Chat() {
    runtime = useAgUiRuntime({ agent });
    return createElement(AssistantRuntimeProvider, { runtime },
      createElement(MocaCitationsUI), createElement(ThreadPrimitive.Messages, { components: { Message } }));
  }
  const mounted = await mount(createElement(Chat));
  const end = runEnd(agent);
  await act(async () => {
    runtime.thread.append({ role: "user", content: [{ type: "text", text: question }] });
    await end;
  });
  return mounted;
}

test("assistant-ui: an event for an earlier message of the run is not shown under a later one", async () => {
  const record = JSON.parse(readFileSync(new URL("../../../tests/client/client-cases.json", import.meta.url), "utf8")).base;
  const text = (messageId, delta) => [
    { type: "TEXT_MESSAGE_START", messageId, role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId, delta },
    { type: "TEXT_MESSAGE_END", messageId },
  ];
  const agent = scripted([...text("m1", "First [1]."), ...text("m2", "Second, no sources."),
    { type: "CUSTOM", name: "moca.citations", value: { version: 1, messageId: "m1", citations: [{ marker: "[1]", record }] } }]);
  const { root, container } = await assistantUi(agent, "Two answers?");
  const messages = [...container.querySelectorAll(".message")].map((m) => m.textContent);
  assert.deepEqual(messages.slice(-2), ["First [1].", "Second, no sources."]); // the part lands on m2
  assert.equal(container.querySelectorAll("article.source").length, 0); // never under m2
  await act(async () => root.unmount());
});

// pydantic-ai sends an empty text message beside each tool call: the answer is not the
// run's first message there.
for (const framework of ["ag-ui", "pydantic-ai"]) {
  describe(`against moca-agui demo --framework ${framework}`, () => {
    let demo;
    before(async () => { demo = await startDemo(framework); });
    after(async () => { await demo?.stop(); });

    test("CopilotKit v2: useAgent + agent.subscribe, shown through renderCustomMessages", async () => {
      // the snippet's runtimeUrl is the user's CopilotKit runtime: here, the agent itself,
      // of the @ag-ui/client CopilotKit ships (0.0.x), as its users' agents are
      const { HttpAgent: CopilotKitHttpAgent } = await import("@copilotkit/react-core/v2");
      const agent = new CopilotKitHttpAgent({ url: demo.url, agentId: "moca" });
      globalThis.__mocaAgent = agent;
      const { App } = await snippet("copilotkit", (code) => {
        assert.ok(code.includes('runtimeUrl="/api/copilotkit"'));
        return code.replace('runtimeUrl="/api/copilotkit"', "agents__unsafe_dev_only={{ moca: globalThis.__mocaAgent }}");
      });
      const { root, container } = await mount(createElement(App));
      const textarea = container.querySelector("textarea");
      await act(async () => { // the user types the question into CopilotChat and sends it
        Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value").set.call(textarea, QUESTION);
        textarea.dispatchEvent(new Event("input", { bubbles: true }));
      });
      const end = runEnd(agent);
      await act(async () => {
        textarea.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", code: "Enter", bubbles: true }));
        await end;
      });
      assert.deepEqual(shownAfterAnswer(container), REFS);
      assert.equal(container.querySelectorAll(".moca-sources").length, 1, "once, after its message");
      await act(async () => root.unmount());
    });

    test("assistant-ui: makeAssistantDataUI({ name: 'moca.citations' }), checking messageId", async () => {
      const { root, container } = await assistantUi(new HttpAgent({ url: demo.url }), QUESTION);
      assert.deepEqual(shownAfterAnswer(container), REFS);
      assert.equal(container.querySelectorAll(".moca-sources").length, 1);
      await act(async () => root.unmount());
  });
  });
}
