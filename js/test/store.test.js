// The store's rules (spec section 4) through the real @ag-ui/client: a scripted SSE answer.
import assert from "node:assert/strict";
import { mock, test } from "node:test";

import { HttpAgent } from "@ag-ui/client";
import { MocaCitations, readCitations, skipBadFrames, sseEvents } from "moca-agui";

import { CASES } from "./cases.js";

const RECORD = CASES.base;
const OTHER = { ...CASES.base, node: { ...CASES.base.node, ref: `${CASES.base.node.ref}-other` } };
const run = { threadId: "t1", runId: "r1" };

/** An HttpAgent whose service answers `events` (then RUN_FINISHED) as SSE. */
function scripted(events) {
  const body = [{ type: "RUN_STARTED", ...run }, ...events, { type: "RUN_FINISHED", ...run }]
    .map((event) => `data: ${JSON.stringify(event)}\n\n`).join("");
  const fetch = async () => new Response(body, { headers: { "Content-Type": "text/event-stream" } });
  return new HttpAgent({ url: "http://127.0.0.1:9/", fetch, threadId: "t1" });
}

const text = (messageId, delta, role = "assistant") => [
  { type: "TEXT_MESSAGE_START", messageId, role },
  { type: "TEXT_MESSAGE_CONTENT", messageId, delta },
  { type: "TEXT_MESSAGE_END", messageId },
];
const cite = (messageId, citations, extra = {}) => ({
  type: "CUSTOM", name: "moca.citations", value: { version: 1, messageId, citations, ...extra },
});

async function runWith(events) {
  const store = new MocaCitations();
  const warn = mock.method(console, "warn", () => {});
  try {
    await scripted(events).runAgent({}, store.subscriber());
  } finally {
    warn.mock.restore();
  }
  return { store, warnings: warn.mock.calls.map((c) => String(c.arguments[0])) };
}

test("an event is kept for the assistant message it names, keyed by node.ref, with each entry's marker", async () => {
  const { store, warnings } = await runWith([
    ...text("m1", "See [1]."),
    cite("m1", [{ marker: "[1]", record: RECORD }, { marker: "[2]", record: RECORD },
      { record: OTHER }], { computedAt: "2026-11-30T09:00:00.000+00:00" }),
  ]);
  assert.deepEqual(store.get("m1"), {
    computedAt: "2026-11-30T09:00:00.000+00:00",
    citations: [
      { marker: "[1]", markers: ["[1]", "[2]"], record: RECORD },  // [2]: another span of it
      { marker: null, markers: [], record: OTHER },
    ],
  });
  assert.deepEqual(warnings, []);
});

test("an unknown version, an unknown message, a user message and other CUSTOM events are ignored", async () => {
  const { store, warnings } = await runWith([
    ...text("m1", "a"),
    ...text("u1", "question", "user"),
    { type: "CUSTOM", name: "moca.citations", value: { version: 2, messageId: "m1", citations: [] } },
    { type: "CUSTOM", name: "acme.sources", value: { version: 1, messageId: "m1", citations: [] } },
    cite("nope", [{ record: RECORD }]),
    cite("u1", [{ record: RECORD }]),
  ]);
  assert.equal(store.get("m1"), undefined);
  assert.equal(store.get("nope"), undefined);
  assert.equal(store.get("u1"), undefined);
  assert.deepEqual(warnings, [
    "moca-agui: ignored an event of version 2",
    'moca-agui: ignored the citations of "nope": no such assistant message',
    'moca-agui: ignored the citations of "u1": no such assistant message',
  ]);
});

test("a second event for a message is ignored; invalid records are skipped with a warning", async () => {
  const bad = { ...RECORD, trust: { ...RECORD.trust, stale: "no" } };
  const { store, warnings } = await runWith([
    ...text("m1", "a"),
    cite("m1", [{ record: bad }, "junk", { marker: "", record: RECORD }], { computedAt: "today" }),
    cite("m1", [{ record: OTHER }]),
  ]);
  assert.deepEqual(store.get("m1"), {
    computedAt: null, citations: [{ marker: null, markers: [], record: RECORD }],
  });
  assert.deepEqual(warnings, [
    "moca-agui: skipped citations[0], invalid record (trust.stale)",
    "moca-agui: skipped citations[1], invalid record (not an object)",
    "moca-agui: computedAt is not an RFC 3339 date-time",
    'moca-agui: ignored a second event for message "m1"',
  ]);
});

test("ids from MESSAGES_SNAPSHOT and chunked messages count; a tool-call-only message does not", async () => {
  const { store } = await runWith([
    { type: "TEXT_MESSAGE_CHUNK", messageId: "c1", role: "assistant", delta: "Hel" },
    { type: "TEXT_MESSAGE_CHUNK", delta: "lo" },
    { type: "MESSAGES_SNAPSHOT", messages: [
      { id: "s1", role: "assistant", content: "From the snapshot [1]." },
      { id: "s2", role: "assistant", toolCalls: [] },
    ] },
    cite("s1", [{ marker: "[1]", record: RECORD }]),
    cite("s2", [{ record: RECORD }]),
  ]);
  assert.deepEqual(store.get("s1")?.citations, [{ marker: "[1]", markers: ["[1]"], record: RECORD }]);
  assert.equal(store.get("s2"), undefined);
});

test("listeners hear each change until they unsubscribe; a snapshot is stable", async () => {
  const store = new MocaCitations();
  const agent = scripted([...text("m1", "a"), cite("m1", [{ record: RECORD }])]);
  const heard = [];
  const stop = store.subscribe(() => heard.push(store.get("m1")));
  agent.subscribe(store.subscriber());
  await agent.runAgent();
  stop();
  assert.equal(heard.length, 1);
  assert.equal(heard[0], store.get("m1")); // the same object each time: useSyncExternalStore
  assert.ok(Object.isFrozen(store.get("m1")));
});

test("readCitations reads a value on its own (an assistant-ui data part)", () => {
  const value = cite("m1", [{ marker: "[1]", record: RECORD }]).value;
  assert.deepEqual(readCitations(value), {
    messageId: "m1", computedAt: null, citations: [{ marker: "[1]", markers: ["[1]"], record: RECORD }],
  });
  const warn = mock.method(console, "warn", () => {});
  assert.equal(readCitations({ ...value, messageId: "" }), null);
  assert.equal(readCitations(null), null);
  warn.mock.restore();
});

test("a huge id or version is cut in the warning, and nothing is kept", async () => {
  const huge = "x".repeat(100_000);
  const { store, warnings } = await runWith([
    ...text("m1", "a"),
    { type: "CUSTOM", name: "moca.citations", value: { version: huge, messageId: "m1", citations: [] } },
    cite(huge, [{ record: RECORD }]),
  ]);
  assert.equal(store.get(huge), undefined);
  assert.deepEqual(warnings.map((w) => w.length < 300), [true, true]);
  assert.match(warnings[1], /^moca-agui: ignored the citations of "x{199}…: no such assistant message$/);
});

/** A Response of `body` (a string) as SSE, in chunks of `size` characters' bytes. */
function sse(body, size = body.length) {
  const bytes = new TextEncoder().encode(body);
  const stream = new ReadableStream({
    start(controller) {
      for (let at = 0; at < bytes.length; at += size) controller.enqueue(bytes.slice(at, at + size));
      controller.close();
    },
  });
  return new Response(stream, { headers: { "Content-Type": "text/event-stream" } });
}

const BAD_FRAMES = "data: null\n\ndata: {\"type\": \n\ndata: [1]\n\ndata: {\"type\": 5}\n\n: ping\n\n";

test("skipBadFrames: a frame that is not an AG-UI event is skipped with a warning, and the run goes on", async () => {
  const frames = (events) => events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join("");
  const body = frames([{ type: "RUN_STARTED", ...run }, ...text("m1", "See [1].")]) + BAD_FRAMES +
    frames([cite("m1", [{ marker: "[1]", record: RECORD }]), { type: "RUN_FINISHED", ...run }]);
  const store = new MocaCitations();
  const warn = mock.method(console, "warn", () => {});
  try {
    const fetch = skipBadFrames(async () => sse(body, 7));
    await new HttpAgent({ url: "http://127.0.0.1:9/", fetch, threadId: "t1" }).runAgent({}, store.subscriber());
  } finally {
    warn.mock.restore();
  }
  assert.deepEqual(store.get("m1")?.citations.map((c) => c.marker), ["[1]"]);
  assert.deepEqual(warn.mock.calls.map((c) => String(c.arguments[0])), [
    "moca-agui: skipped frame 4: not an AG-UI event: null",
    "moca-agui: skipped frame 5: not JSON: \"{\\\"type\\\": \"",
    "moca-agui: skipped frame 6: not an AG-UI event: [1]",
    "moca-agui: skipped frame 7: not an AG-UI event: {\"type\":5}",
  ]);
});

test("sseEvents reads the same events from any chunking and any line ending", async (t) => {
  t.mock.method(console, "warn", () => {});
  const events = [{ type: "RUN_STARTED", ...run }, ...text("m1", "a\r\nb é"), { type: "RUN_FINISHED", ...run }];
  const lf = events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join("") + BAD_FRAMES;
  for (const body of [lf, lf.replaceAll("\n", "\r\n"), lf.replaceAll("\n", "\r")]) {
    for (const size of [1, 2, 3, 5, body.length]) {
      const read = [];
      for await (const event of sseEvents(sse(body, size).body)) read.push(event);
      assert.deepEqual(read, events, `chunks of ${size}`);
    }
  }
  // A last frame without its blank line is read; a JSON event on several data lines too.
  const read = [];
  for await (const event of sseEvents(sse('data: {"type":\ndata: "RUN_STARTED"}').body)) read.push(event);
  assert.deepEqual(read, [{ type: "RUN_STARTED" }]);
});

// -- the citations a message carries on its metadata (issue 31) -------------------------------

const value = (messageId, citations) => ({ version: 1, messageId, citations });
const carrying = (id, content, carried) => ({
  id, role: "assistant", content, metadata: { citations: "other", "moca.citations": carried },
});

test("a snapshot message carrying its citations on metadata is kept; the same event after it is taken once", async () => {
  const carried = value("n1", [{ marker: "[1]", record: RECORD }]);
  const snapshot = { type: "MESSAGES_SNAPSHOT", messages: [carrying("n1", "See [1].", carried)] };
  for (const events of [[snapshot], [snapshot, { type: "CUSTOM", name: "moca.citations", value: carried }]]) {
    const { store, warnings } = await runWith([...text("chatcmpl-1", "See [1]."), ...events]);
    assert.deepEqual(store.get("n1")?.citations, [{ marker: "[1]", markers: ["[1]"], record: RECORD }]);
    assert.deepEqual(warnings, []);
  }
});

test("a replayed event (CopilotKit's runners on reconnect) is taken once, silently", async () => {
  const { store, warnings } = await runWith([
    ...text("m1", "See [1]."),
    cite("m1", [{ marker: "[1]", record: RECORD }]),
    cite("m1", [{ marker: "[1]", record: RECORD }]),
  ]);
  assert.equal(store.get("m1")?.citations.length, 1);
  assert.deepEqual(warnings, []);
});

test("an answer a snapshot renames keeps its citations under the new id; two of one text do not", async () => {
  const { store } = await runWith([
    ...text("s1", "Mark the queen [1]."),
    cite("s1", [{ marker: "[1]", record: RECORD }]),
    ...text("s2", "Same."),
    ...text("s3", "Same."),
    cite("s2", [{ record: OTHER }]),
    cite("s3", [{ record: OTHER }]),
    { type: "MESSAGES_SNAPSHOT", messages: [
      { id: "n1", role: "assistant", content: "Mark the queen [1]." },
      { id: "n2", role: "assistant", content: "Same." },
      { id: "n3", role: "assistant", content: "Same." },
    ] },
  ]);
  assert.deepEqual(store.get("n1")?.citations, [{ marker: "[1]", markers: ["[1]"], record: RECORD }]);
  assert.equal(store.get("n2"), undefined);
  assert.equal(store.get("n3"), undefined);
});

test("messages restored from history carry their citations; metadata naming another message is refused", () => {
  const store = new MocaCitations();
  const warn = mock.method(console, "warn", () => {});
  try {
    store.fromMessages([
      { id: "u1", role: "user", content: "q" },
      carrying("a1", "See [1].", value("a1", [{ marker: "[1]", record: RECORD }])),
      carrying("a2", "Forged.", value("a1", [{ record: OTHER }])),
    ]);
  } finally {
    warn.mock.restore();
  }
  assert.equal(store.get("a1")?.citations[0].record, RECORD);
  assert.equal(store.get("a2"), undefined);
  assert.deepEqual(warn.mock.calls.map((c) => String(c.arguments[0])),
    ['moca-agui: ignored the citations on the metadata of "a2": not its own']);
});

test("a renamed answer's old id is never matched again: a later answer of the same text keeps its own", () => {
  const store = new MocaCitations();
  const subscriber = store.subscriber();
  const held = (id) => ({ id, role: "assistant", content: "See [1]." });
  subscriber.onCustomEvent({
    event: { name: "moca.citations", value: value("s1", [{ marker: "[1]", record: RECORD }]) },
    messages: [held("s1")],
  });
  subscriber.onMessagesSnapshotEvent({ event: { messages: [held("n1")] } });
  subscriber.onMessagesSnapshotEvent({ event: { messages: [held("n1"), held("n2")] } });
  assert.equal(store.get("n1")?.citations[0].record, RECORD);
  assert.equal(store.get("s1"), undefined);
  assert.equal(store.get("n2"), undefined);
  subscriber.onCustomEvent({
    event: { name: "moca.citations", value: value("n2", [{ marker: "[1]", record: OTHER }]) },
    messages: [held("n1"), held("n2")],
  });
  assert.equal(store.get("n2")?.citations[0].record, OTHER);
});
