// The work a run does on its ledger stays linear in what it carries: each ended answer's
// look-ahead brings the ledger up to date with what came since, not with every result again.
// Counted as reads of the run's results (no timing), with a lookup given.
import assert from "node:assert/strict";
import { test } from "node:test";
import { citationOptions } from "../middleware/options.js";
import { CitationRun } from "../middleware/run.js";
import { record } from "./middleware-suite.js";

const N = 300;
const path = (i) => `n${i}.md`;

/** A run of N Reader calls announced in `order`, each result (compact for the first only)
 * followed by an answer naming [1]: how often it read a result, and the events it made. */
async function counted(order) {
  const run = new CitationRun(citationOptions({ lookup: (ref) => record(ref.split("#")[1]) }));
  let reads = 0;
  run.results = new Proxy(run.results, {
    get(target, key, receiver) {
      if (typeof key === "string" && /^\d+$/.test(key)) reads += 1;
      return Reflect.get(target, key, receiver);
    },
  });
  for (let i = 0; i < N; i += 1) run.callMade(`c${i}`, "moca_search");
  order.forEach((i, n) => {
    const item = n === 0 ? { ref: record(path(i)).node.ref } : record(path(i));
    run.result(`c${i}`, JSON.stringify({ results: [item] }));
    run.opened(`m${n}`, "assistant");
    run.text(`m${n}`, "Per [1].");
    run.closed(`m${n}`);
  });
  const events = await run.due();
  return { reads, events };
}

const inOrder = [...Array(N).keys()];

for (const [name, order] of [["in their calls' order", inOrder], ["in reverse", [...inOrder].reverse()]]) {
  test(`N results ${name}, an answer after each: each result is read a bounded number of times`, async () => {
    const { reads, events } = await counted(order);
    assert.equal(events.length, N);
    const last = events.at(-1).value.citations.map((c) => [c.marker, c.record.node.path]);
    assert.deepEqual(last, [["[1]", path(0)]]);
    assert.ok(reads <= 10 * N, `${reads} reads of ${N} results`);
  });
}

test("the kept ledger numbers an earlier answer over what had arrived when it began", async () => {
  const run = new CitationRun(citationOptions({ lookup: (ref) => record(ref.split("#")[1]) }));
  run.callMade("c0", "moca_search");
  run.callMade("c1", "moca_search");
  run.result("c0", JSON.stringify({ results: [{ ref: record("a.md").node.ref }] })); // compact
  run.opened("m0", "assistant");
  run.text("m0", "Per [1] and [2].");
  run.closed("m0"); // its look-ahead makes the ledger of one result
  run.result("c1", JSON.stringify({ results: [record("b.md")] }));
  run.opened("m1", "assistant");
  run.text("m1", "Per [2].");
  run.closed("m1");
  const remade = run.remade;
  const cited = (await run.due()).map((e) => e.value.citations.map((c) => [c.marker, c.record.node.path]));
  assert.equal(run.remade, remade, "the second result was appended, not made anew");
  assert.deepEqual(cited, [[["[1]", "a.md"]], [["[2]", "b.md"]]]);
});
