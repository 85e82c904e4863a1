// The CitationMiddleware with @ag-ui/client 1.x (js/'s own); client-0.0.59/ runs the same
// suite with 0.0.59. And what a browser imports of the package needs no Node-only API.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { test } from "node:test";
import * as client from "@ag-ui/client";
import { MocaCitations } from "moca-agui";
import { CitationMiddleware, instrument } from "moca-agui/middleware";
import { middlewareSuite } from "./middleware-suite.js";

middlewareSuite({ client, CitationMiddleware, instrument, MocaCitations, version: "@ag-ui/client 1.x" });

test("what a browser imports of the package names no node: module, nor process or Buffer", () => {
  // every JavaScript file the package ships (package.json "files": names, folders, *.js)
  const shipped = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).files;
  const files = shipped.flatMap((entry) => {
    const folder = entry.endsWith("/") ? entry : entry.endsWith("/*.js") ? entry.slice(0, -4) : null;
    if (folder === null) return entry.endsWith(".js") ? [entry] : [];
    return readdirSync(new URL(`../${folder}`, import.meta.url)).filter((n) => n.endsWith(".js")).map((n) => folder + n);
  });
  assert.ok(["dom.js", "view.js", "markers/index.js", "middleware/run.js"].every((f) => files.includes(f)), files.join());
  for (const file of files) {
    const source = readFileSync(new URL(`../${file}`, import.meta.url), "utf8");
    const imports = [...source.matchAll(/^(?:import|export) [^;]* from "([^"]+)";/gm)].map((m) => m[1]);
    const foreign = imports.filter((name) => !name.startsWith(".") && !["@ag-ui/client", "rxjs", "react"].includes(name));
    assert.deepEqual(foreign, [], file);
    assert.doesNotMatch(source, /\bprocess\.|\bBuffer\b|require\(/, file);
  }
});

test("an event the middleware cannot read turns citations off for the run; every event flows on as it came", async () => {
  const { from, lastValueFrom, toArray } = await import("rxjs");
  const result = JSON.stringify({ results: [{ package: {}, node: { ref: "x" }, trust: {} }] });
  const events = [
    { type: "RUN_STARTED", threadId: "t", runId: "r" },
    { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "moca_search" },
    { type: "TOOL_CALL_RESULT", messageId: "t1", toolCallId: "c1", content: result },
    null,
    { type: "TEXT_MESSAGE_START", messageId: 7, role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "[1]" },
    { type: "TEXT_MESSAGE_END", messageId: "m1" },
    { type: "RUN_FINISHED", threadId: "t", runId: "r" },
  ];
  const warned = [];
  const kept = console.warn;
  console.warn = (...args) => warned.push(args.map(String).join(" "));
  try {
    const sent = await lastValueFrom(new CitationMiddleware().run({}, { run: () => from(events) }).pipe(toArray()));
    assert.deepEqual(sent, events);
    assert.ok(warned.some((line) => line.includes("citations off for this run")), warned.join("\n"));
  } finally {
    console.warn = kept;
  }
});

test("an agent with a memory of its own (Mastra's, duck-typed) and no keptThread: markers left out, logged once", async () => {
  const { from, lastValueFrom, toArray } = await import("rxjs");
  const cases = JSON.parse(readFileSync(new URL("../../tests/conformance/cases/threads.json", import.meta.url), "utf8")).cases;
  const unknown = cases.find((c) => c.name === "a kept thread not known");
  const citations = (sent) => sent.filter((e) => e.type === "CUSTOM").map((e) => e.value.citations
    .map((c) => [c.marker ?? null, c.record.node.path]));
  const run = async (memory, options = {}) => {
    const agent = { agent: { getMemory: async () => memory }, run: () => from(structuredClone(unknown.events)) };
    const warned = [];
    const kept = console.warn;
    console.warn = (...args) => warned.push(args.map(String).join(" "));
    try {
      const sent = await lastValueFrom(new CitationMiddleware(options).run(unknown.input, agent).pipe(toArray()));
      return { cited: citations(sent), warned };
    } finally {
      console.warn = kept;
    }
  };
  const own = await run({ recall: async () => ({ messages: [] }) });
  assert.deepEqual(own.cited, citations(unknown.expected)); // the versioned ref only
  assert.deepEqual(own.cited, [[[null, "c.md"]]]);
  assert.equal(own.warned.filter((line) => line.includes("keptThread")).length, 1, own.warned.join("\n"));
  // no memory: it reads the request's thread; a keptThread given: that thread
  assert.deepEqual((await run(undefined)).cited, [[["[1]", "c.md"]]]);
  assert.deepEqual((await run({}, { keptThread: () => [] })).cited, [[["[1]", "c.md"]]]);
});

test("debug lines are silent by default, as Python's are; the logger option takes them, warnings stay on console", async () => {
  const { from, lastValueFrom, toArray } = await import("rxjs");
  const result = JSON.stringify({ results: [{ ref: "https://example.com/kb@1.0.0#a.md" }] }); // compact
  const events = [
    { type: "RUN_STARTED", threadId: "t", runId: "r" },
    { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "moca_search" },
    { type: "TOOL_CALL_RESULT", messageId: "t1", toolCallId: "c1", content: result },
    { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "See [1] and [7]." },
    { type: "TEXT_MESSAGE_END", messageId: "m1" },
    { type: "RUN_FINISHED", threadId: "t", runId: "r" },
  ];
  const logged = async (options) => {
    const lines = { debug: [], warn: [], log: [] };
    const kept = [console.debug, console.warn, console.log];
    console.debug = (...args) => lines.debug.push(args.map(String).join(" "));
    console.warn = (...args) => lines.warn.push(args.map(String).join(" "));
    console.log = (...args) => lines.log.push(args.map(String).join(" "));
    try {
      const middleware = new CitationMiddleware(options);
      await lastValueFrom(middleware.run({ messages: [] }, { run: () => from(events) }).pipe(toArray()));
    } finally {
      [console.debug, console.warn, console.log] = kept;
    }
    return lines;
  };
  const unknownMarker = "moca-agui: left out 7 of [7]: it names no source shown before it";
  const compact = /^moca-agui: left out https:\/\/example\.com\/kb@1\.0\.0#a\.md: moca_search returned a compact result/;
  const quiet = await logged(undefined);
  assert.deepEqual([quiet.debug, quiet.log], [[], []]);
  assert.ok(quiet.warn.some((line) => compact.test(line)), quiet.warn.join("\n"));

  const taken = [];
  const debugging = await logged({ logger: { debug: (...args) => taken.push(args.join(" ")) } });
  assert.ok(taken.includes(unknownMarker), taken.join("\n"));
  assert.deepEqual([debugging.debug, debugging.log], [[], []]);
  assert.ok(debugging.warn.some((line) => compact.test(line)), debugging.warn.join("\n"));

  const warned = [];
  const own = await logged({ logger: { warn: (...args) => warned.push(args.join(" ")) } });
  assert.deepEqual([own.debug, own.warn, own.log], [[], [], []]);
  assert.ok(warned.some((line) => compact.test(line)), warned.join("\n"));

  const both = await logged({ logger: console });
  assert.ok(both.debug.includes(unknownMarker), both.debug.join("\n"));
  assert.ok(both.warn.some((line) => compact.test(line)), both.warn.join("\n"));

  for (const logger of [null, "console", { debug: "yes" }]) {
    assert.throws(() => new CitationMiddleware({ logger }), TypeError);
  }
});
