// What the CitationMiddleware costs per event and per Reader result, measured side by side
// with a pass-through middleware (the floor: any middleware's hop) and the agent's bare
// stream, in one run, rounds interleaved in a rotating order; medians printed, as ratios.
// A benchmark, not a test: nothing here passes or fails.
//
//   node bench/middleware.bench.js [--quick]
import { Middleware } from "@ag-ui/client";
import { cpus, loadavg } from "node:os";
import { from } from "rxjs";
import { CitationMiddleware } from "moca-agui/middleware";

const QUICK = process.argv.includes("--quick");
const ROUNDS = QUICK ? 9 : 31;

const record = (n) => ({
  package: { id: "https://example.com/kb", version: "1.0.0", digest: `sha256:${"a".repeat(64)}`, signed: false },
  node: { id: `https://example.com/kb#n${n}.md`, path: `n${n}.md`, type: "Note", ref: `https://example.com/kb@1.0.0#n${n}.md`,
    title: `Node ${n}` },
  text: `Text of node ${n}. `.repeat(20),
  trust: { status: "stable", declaredVerified: [], attestedReviews: [], stale: false, inForce: true,
    superseded: false, contested: false },
});

/** A run: `results` Reader calls of 5 records each, then an answer of `deltas` deltas that
 * names a source every tenth delta. */
function workload(results, deltas) {
  const events = [{ type: "RUN_STARTED", threadId: "t", runId: "r" }];
  for (let c = 0; c < results; c += 1) {
    const content = JSON.stringify({ results: [0, 1, 2, 3, 4].map((i) => record(c * 5 + i)) });
    events.push({ type: "TOOL_CALL_START", toolCallId: `c${c}`, toolCallName: "moca_search" },
      { type: "TOOL_CALL_END", toolCallId: `c${c}` },
      { type: "TOOL_CALL_RESULT", messageId: `t${c}`, toolCallId: `c${c}`, content });
  }
  events.push({ type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" });
  for (let d = 0; d < deltas; d += 1) {
    const delta = d % 10 === 9 ? ` [${(d % (results * 5)) + 1}]` : " word";
    events.push({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta });
  }
  events.push({ type: "TEXT_MESSAGE_END", messageId: "m" }, { type: "RUN_FINISHED", threadId: "t", runId: "r" });
  return events;
}

/** A run with `lookup`: `pairs` Reader calls, each a compact result followed by an answer
 * naming it and the first source (each answer's lookups start as it ends). */
function interleaved(pairs) {
  const events = [{ type: "RUN_STARTED", threadId: "t", runId: "r" }];
  for (let c = 0; c < pairs; c += 1) {
    const content = JSON.stringify({ results: [{ ref: record(c).node.ref }] });
    events.push({ type: "TOOL_CALL_START", toolCallId: `c${c}`, toolCallName: "moca_search" },
      { type: "TOOL_CALL_END", toolCallId: `c${c}` },
      { type: "TOOL_CALL_RESULT", messageId: `t${c}`, toolCallId: `c${c}`, content },
      { type: "TEXT_MESSAGE_START", messageId: `m${c}`, role: "assistant" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: `m${c}`, delta: `Per [${c + 1}] and [1].` },
      { type: "TEXT_MESSAGE_END", messageId: `m${c}` });
  }
  events.push({ type: "RUN_FINISHED", threadId: "t", runId: "r" });
  return events;
}

class PassThrough extends Middleware {
  run(input, next) {
    return next.run(input);
  }
}

const FLOOR = "pass-through middleware (floor)";
const VARIANTS = {
  bare: null,
  [FLOOR]: new PassThrough(),
  CitationMiddleware: new CitationMiddleware(),
  "CitationMiddleware, includeText false": new CitationMiddleware({ includeText: false }),
};
const WITH_LOOKUP = {
  [FLOOR]: new PassThrough(),
  "CitationMiddleware, lookup": new CitationMiddleware({ lookup: (ref) => record(Number(/#n(\d+)\.md$/.exec(ref)[1])) }),
};

/** Wall and CPU microseconds to drain one run through `middleware`, and the events out. */
function once(events, middleware) {
  const next = { run: () => from(events) };
  let out = 0;
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const stream = middleware ? middleware.run({ messages: [] }, next) : next.run();
  stream.subscribe({ next: () => { out += 1; } });
  const wall = Number(process.hrtime.bigint() - start) / 1000;
  const used = process.cpuUsage(cpu);
  if (out < events.length) throw new Error("the run did not end synchronously");
  return { wall, cpu: used.user + used.system };
}

/** Wall and CPU microseconds until a run through `middleware`, which waits for its lookups,
 * completes. */
async function drained(events, middleware) {
  const next = { run: () => from(events) };
  console.warn = () => {}; // each run logs that it reached maxLookups
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await new Promise((resolve, reject) => middleware.run({ messages: [] }, next).subscribe({ complete: resolve, error: reject }));
  const wall = Number(process.hrtime.bigint() - start) / 1000;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: used.user + used.system };
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** Each variant's median wall and CPU time for `events` (a run by `run`), rounds rotating
 * the order. */
async function measure(events, variants, run) {
  const names = Object.keys(variants);
  const times = Object.fromEntries(names.map((name) => [name, { wall: [], cpu: [] }]));
  for (let round = 0; round < 3; round += 1) for (const name of names) await run(events, variants[name]); // warm up
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let k = 0; k < names.length; k += 1) {
      const name = names[(round + k) % names.length];
      const { wall, cpu } = await run(events, variants[name]);
      times[name].wall.push(wall);
      times[name].cpu.push(cpu);
    }
  }
  return Object.fromEntries(names.map((name) => [name, { wall: median(times[name].wall), cpu: median(times[name].cpu) }]));
}

async function table(title, events, unit, units, variants = VARIANTS, run = once) {
  const measured = await measure(events, variants, run);
  const floor = measured[FLOOR];
  const counted = unit === "event" ? "" : `, ${units} ${unit}s`;
  console.log(`\n${title}: ${events.length} events${counted}, median of ${ROUNDS} rounds\n`);
  console.log(`| served | wall ms | µs/event | wall ratio to floor | CPU ratio to floor | µs more than the floor per ${unit} |`);
  console.log("|---|---|---|---|---|---|");
  for (const [name, { wall, cpu }] of Object.entries(measured)) {
    const extra = (wall - floor.wall) / units;
    console.log(`| ${name} | ${(wall / 1000).toFixed(2)} | ${(wall / events.length).toFixed(2)} | ` +
      `**${(wall / floor.wall).toFixed(3)}** | ${(cpu / floor.cpu).toFixed(3)} | ${extra.toFixed(2)} |`);
  }
}

console.log(`node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), ` +
  `load ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
const perEvent = workload(1, 4000);
await table("Per event (one Reader result, an answer of 4,000 deltas)", perEvent, "event", perEvent.length);
await table("Per Reader result (200 results of 5 records, an answer of 100 deltas)", workload(200, 100), "result", 200);
for (const pairs of [1000, 4000]) {
  await table(`With lookup (${pairs} compact results, each followed by an answer naming it and [1])`,
    interleaved(pairs), "answer", pairs, WITH_LOOKUP, drained);
}
