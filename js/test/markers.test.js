// locateMarkers: where an answer refers to its sources; withReadableDates: dates for people.
import assert from "node:assert/strict";
import { test } from "node:test";

import { locateMarkers, withReadableDates } from "moca-agui";

import { CASES } from "./cases.js";

const A = CASES.base;
const B = { ...A, node: { ...A.node, ref: "https://example.org/moca/apiary@1.0.0#b.md" } };
const shown = (text, mentions) => mentions.map((m) => [text.slice(m.start, m.end), m.citation]);

test("markers and refs between delimiters, in text order, punctuation and markup trimmed", () => {
  const a = { marker: "[1]", record: A };
  const b = { marker: null, record: B };
  const text = `Sun [1], see ${B.node.ref}. Again [1] and **${B.node.ref}**; (${A.node.ref}) [2]`;
  assert.deepEqual(shown(text, locateMarkers(text, [a, b])), [
    ["[1]", a], [B.node.ref, b], ["[1]", a], [B.node.ref, b], [A.node.ref, a],
  ]);
});

test("each marker of a source is found: one per span of the node the event cited", () => {
  const a = { marker: "[1]", markers: ["[1]", "[3]"], record: A };
  const text = "First passage [1], second [3], not [2].";
  assert.deepEqual(shown(text, locateMarkers(text, [a])), [["[1]", a], ["[3]", a]]);
});

test("a marker in markdown code is no marker, as the service reads it", () => {
  const a = { marker: "[1]", markers: ["[1]", "[2]"], record: A };
  const text = "In `xs[2]` and ```\nys[1]\n``` no source; ``a`[1]`` neither; here [1], an unclosed ` then [2].";
  assert.deepEqual(shown(text, locateMarkers(text, [a])).map(([marker]) => marker), ["[1]", "[2]"]);
  const found = locateMarkers(text, [a]).map((m) => m.start);
  assert.deepEqual(found, [text.indexOf("here [1]") + 5, text.lastIndexOf("[2]")]);
  const hostile = "`x[1]".repeat(200_000); // linear: every other [1] is outside code
  assert.equal(locateMarkers(hostile, [a]).length, 100_000);
});

test("a ref-like token no citation has is found with citation null: not a source", () => {
  const a = { marker: "[1]", record: A };
  const invented = "https://example.org/moca/apiary@0.9.0#a.md";
  const text = `Old advice: ${invented}, new: ${A.node.ref}. Longer: ${A.node.ref}/x. Mail me@example.org#x. [1]`;
  assert.deepEqual(shown(text, locateMarkers(text, [a])), [
    [invented, null], [A.node.ref, a], [`${A.node.ref}/x`, null], ["[1]", a],
  ]);
});

test("no citations, no text", () => {
  assert.deepEqual(locateMarkers("", []), []);
  assert.deepEqual(locateMarkers("plain text [1]", []), []);
});

test("ISO dates and date-times become readable parts; other text stays", () => {
  const options = { locale: "en-GB", timeZone: "UTC" };
  assert.deepEqual(withReadableDates("Valid from 2026-07-01T00:00:00Z until 2026-09-30.", options), [
    "Valid from ", { iso: "2026-07-01T00:00:00Z", readable: "1 Jul 2026, 00:00 UTC" },
    " until ", { iso: "2026-09-30", readable: "30 Sept 2026" }, ".",
  ]);
  assert.deepEqual(withReadableDates("2026-11-30T10:00:00+01:00", options),
    [{ iso: "2026-11-30T10:00:00+01:00", readable: "30 Nov 2026, 09:00 UTC" }]);
  assert.deepEqual(withReadableDates("no date, 2026-13-45 neither", options), ["no date, 2026-13-45 neither"]);
});

const options = { locale: "en-GB", timeZone: "UTC" };
test("withReadableDates makes one formatter of each kind for a text of 20,000 dates (linear, not 20,000 formatters)", (t) => {
  const made = [];
  const Original = Intl.DateTimeFormat;
  // Node 20's mock has no property(): swap the constructor by hand, and back after the test.
  Intl.DateTimeFormat = function DateTimeFormat(...args) {
    made.push(args[1]?.hour ? "time" : "day");
    return new Original(...args);
  };
  t.after(() => { Intl.DateTimeFormat = Original; });
  const dates = Array.from({ length: 10000 }, (_, i) => `2026-01-${String((i % 28) + 1).padStart(2, "0")}T10:00:00Z 2026-02-01`);
  const parts = withReadableDates(dates.join(", "), options);
  assert.equal(parts.filter((part) => typeof part !== "string").length, 20000);
  assert.deepEqual(made.sort(), ["day", "time"]);
  assert.deepEqual(parts.slice(0, 3), [
    { iso: "2026-01-01T10:00:00Z", readable: "1 Jan 2026, 10:00 UTC" }, " ",
    { iso: "2026-02-01", readable: "1 Feb 2026" }]);
});
