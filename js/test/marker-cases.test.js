// The marker case table shared with moca_agui (Python): tests/markers/marker-cases.json.
// Each case's markers are placed as the service found them (none in code, none in a link), and
// each opens the citations of the markers it names.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { locateMarkers } from "moca-agui";

import { CASES } from "./cases.js";

const TABLE = JSON.parse(
  readFileSync(new URL("../../tests/markers/marker-cases.json", import.meta.url), "utf8"));

for (const c of TABLE.cases) {
  test(`marker case: ${c.name}`, () => {
    const citations = c.markers.map((marker, index) => ({
      marker,
      record: { ...CASES.base, node: { ...CASES.base.node, ref: `${CASES.base.node.ref}-${index}` } },
    }));
    const mentions = locateMarkers(c.text, citations);
    assert.deepEqual(mentions.map((m) => [c.text.slice(m.start, m.end), m.start]), c.found);
    // what each opens: the markers of the citations it names (its own text unless told)
    const opens = c.opens ?? c.found.map(([marker]) => [marker]);
    assert.deepEqual(mentions.map((m) => m.citations.map((citation) => citation.marker)), opens);
  });
}
