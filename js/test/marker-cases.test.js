// The marker case table shared with moca_agui (Python): tests/markers/marker-cases.json.
// Each case's markers are placed as the service found them: none in code, none in a link.
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
    const found = locateMarkers(c.text, citations).map((m) => [m.citation?.marker, m.start]);
    assert.deepEqual(found, c.found);
  });
}
