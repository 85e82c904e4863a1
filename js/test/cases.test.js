// The package against the case table it shares with moca_agui.client (Python):
// tests/client/client-cases.json, read by tests/client/test_client_cases.py too.
import assert from "node:assert/strict";
import { test } from "node:test";

import { isRfc3339, readCitations, recordProblem, safeUrl, trustBadges } from "moca-agui";

import { CASES, caseRecord } from "./cases.js";

for (const c of CASES.trustBadges) {
  test(`trustBadges: ${c.name}`, () => {
    assert.deepEqual(trustBadges(caseRecord(c)), c.badges);
  });
}

for (const c of CASES.safeUrl) {
  test(`safeUrl: ${JSON.stringify(c.value)}`, () => {
    assert.equal(safeUrl(c.value), c.safe ? c.value : null);
  });
}

for (const c of CASES.records) {
  test(`recordProblem: ${c.name}`, () => {
    const problem = recordProblem(caseRecord(c));
    assert.equal(problem === null, c.valid, `problem: ${problem}`);
  });
}

for (const c of CASES.rfc3339) {
  test(`computedAt: ${JSON.stringify(c.value)}`, (t) => {
    t.mock.method(console, "warn", () => {});
    assert.equal(isRfc3339(c.value), c.valid);
    const read = readCitations({ version: 1, messageId: "m", computedAt: c.value, citations: [] });
    assert.equal(read?.computedAt, c.valid ? c.value : null);
  });
}
