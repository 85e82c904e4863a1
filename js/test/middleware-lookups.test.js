// The middleware's lookup bounds, as the Python core's (docs/options.md): at most
// `maxLookups` nodes a run, `lookupConcurrency` at a time, each within `lookupTimeout`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { from, lastValueFrom, toArray } from "rxjs";
import { CitationMiddleware } from "moca-agui/middleware";
import { record } from "./middleware-suite.js";

const records = ["a.md", "b.md", "c.md"].map((path) => record(path));

/** A run whose search returned compact results of `records`, its answer naming all three. */
const events = [
  { type: "RUN_STARTED", threadId: "t", runId: "r" },
  { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "moca_search" },
  { type: "TOOL_CALL_END", toolCallId: "c1" },
  { type: "TOOL_CALL_RESULT", messageId: "t1", toolCallId: "c1",
    content: JSON.stringify({ results: records.map((r) => ({ ref: r.node.ref })) }) },
  { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" },
  { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "[1] [2] [3]" },
  { type: "TEXT_MESSAGE_END", messageId: "m1" },
  { type: "RUN_FINISHED", threadId: "t", runId: "r" },
];

/** The cited paths of the run through a middleware with `options`, and the warnings. */
async function cite(options) {
  const warned = [];
  const kept = [console.warn, console.debug];
  console.warn = (...args) => warned.push(args.map(String).join(" "));
  console.debug = () => {};
  try {
    const sent = await lastValueFrom(new CitationMiddleware(options).run({}, { run: () => from(events) }).pipe(toArray()));
    const value = sent.find((e) => e.type === "CUSTOM").value;
    assert.equal(sent.at(-1).type, "RUN_FINISHED");
    return { paths: value.citations.map((c) => c.record.node.path), warned };
  } finally {
    [console.warn, console.debug] = kept;
  }
}

const byRef = (ref) => records.find((r) => r.node.ref === ref) ?? null;

test("maxLookups: the nodes past it are left out, logged once", async () => {
  const asked = [];
  const { paths, warned } = await cite({ maxLookups: 2, lookup: (ref) => (asked.push(ref), byRef(ref)) });
  assert.deepEqual(paths, ["a.md", "b.md"]);
  assert.equal(asked.length, 2);
  assert.equal(warned.filter((line) => line.includes("maxLookups=2")).length, 1);
});

test("lookupConcurrency: no more lookups run at once than it allows; all are answered", async () => {
  let running = 0;
  let most = 0;
  const lookup = async (ref) => {
    running += 1;
    most = Math.max(most, running);
    await new Promise((resolve) => setTimeout(resolve, 5));
    running -= 1;
    return byRef(ref);
  };
  const { paths } = await cite({ lookupConcurrency: 1, lookup });
  assert.deepEqual(paths, ["a.md", "b.md", "c.md"]);
  assert.equal(most, 1);
});

test("lookupTimeout: a lookup that never answers is left out, logged, and the run finishes", async () => {
  const lookup = (ref) => (ref === records[1].node.ref ? new Promise(() => {}) : byRef(ref));
  const { paths, warned } = await cite({ lookupTimeout: 0.05, lookup });
  assert.deepEqual(paths, ["a.md", "c.md"]);
  assert.ok(warned.some((line) => line.includes(records[1].node.ref) && line.includes("lookupTimeout")), warned.join("\n"));
});

test("a lookup that never answers holds its place for lookupTimeout; the others wait their turn", async () => {
  const lookup = (ref) => (ref === records[0].node.ref ? new Promise(() => {}) : byRef(ref));
  const { paths } = await cite({ lookupConcurrency: 1, lookupTimeout: 0.05, lookup });
  assert.deepEqual(paths, ["b.md", "c.md"]);
});

test("lookupDeadline: what is still waiting for a place then is left out, logged once", async () => {
  // The hanging lookup's place is freed at the deadline itself, so the next one may be granted
  // a place on either side of it (timers and Date.now() can disagree by a millisecond). The
  // others answer only after 20 ms, so whichever side it falls on, nothing is cited in time.
  const slowly = (ref) => new Promise((resolve) => setTimeout(() => resolve(byRef(ref)), 20));
  const lookup = (ref) => (ref === records[0].node.ref ? new Promise(() => {}) : slowly(ref));
  const { paths, warned } = await cite({ lookupConcurrency: 1, lookupTimeout: 1, lookupDeadline: 0.05, lookup });
  assert.deepEqual(paths, []);
  assert.equal(warned.filter((line) => line.includes("lookupDeadline=0.05")).length, 1);
});
