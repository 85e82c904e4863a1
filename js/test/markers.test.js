// locateMarkers: where an answer refers to its sources; withReadableDates: dates for people.
import assert from "node:assert/strict";
import { test } from "node:test";

import { MAX_RANGE, findWrittenMarkers, locateMarkers, readMarker, withReadableDates } from "moca-agui";

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

test("an empty marker text is found nowhere (searching for it never ended)", () => {
  assert.deepEqual(locateMarkers("See [1].", [{ marker: "", markers: [""], record: A }]), []);
});

test("no citations, no text", () => {
  assert.deepEqual(locateMarkers("", []), []);
  assert.deepEqual(locateMarkers("plain text [1]", []), []);
});

// -- marker styles: every style a model writes, and the sources a shared marker opens --------

/** A citation of source `n` (its own ref) whose marker is `marker`. */
const source = (n, marker) => ({ marker, record: { ...A, node: { ...A.node, ref: `${A.node.ref}-${n}` } } });
/** Each mention as [its text, the numbers of the sources it opens]. */
const opened = (text, citations) => locateMarkers(text, citations).map((m) => {
  assert.equal(m.citation, m.citations[0] ?? null);
  return [text.slice(m.start, m.end), m.citations.map((c) => Number(c.record.node.ref.split("-").pop()))];
});
/** Sources 1 to `count`, each marked `[n]` as the default numbering marks them. */
const numbered = (count) => Array.from({ length: count }, (_, i) => source(i + 1, `[${i + 1}]`));

test("every style opens the sources its numbers name: numbered, grouped, ranged, footnote, full-width", () => {
  const text = "a [1] b [1, 2] c [1,2] d [1-3] e [1\u20133] f [^2] g \u30103\u3011 h \u30101\u2020source\u3011 " +
    "i [1][2] j [[3]] k **[2]** l [2,\t3] m [1, 2, 3]";
  assert.deepEqual(opened(text, numbered(3)), [
    ["[1]", [1]], ["[1, 2]", [1, 2]], ["[1,2]", [1, 2]], ["[1-3]", [1, 2, 3]], ["[1\u20133]", [1, 2, 3]],
    ["[^2]", [2]], ["\u30103\u3011", [3]], ["\u30101\u2020source\u3011", [1]], ["[1]", [1]], ["[2]", [2]],
    ["[3]", [3]], ["[2]", [2]], ["[2,\t3]", [2, 3]], ["[1, 2, 3]", [1, 2, 3]],
  ]);
});

test("a single-number marker of any style opens the source of that number: [^1], \u30101\u2020source\u3011, [1]", () => {
  const citations = [source(1, "[^1]"), source(2, "\u30102\u2020guide\u3011")];
  const text = "See [^1] and \u30102\u2020guide\u3011, again [1], [2], [1, 2], \u30102\u3011 and [^2].";
  assert.deepEqual(opened(text, citations), [
    ["[^1]", [1]], ["\u30102\u2020guide\u3011", [2]], ["[1]", [1]], ["[2]", [2]], ["[1, 2]", [1, 2]],
    ["\u30102\u3011", [2]], ["[^2]", [2]],
  ]);
});

test("[1, 2] as the first mention of both: one marker opens both sources, in its order", () => {
  const citations = [source(1, "[1, 2]"), source(2, "[1, 2]")];
  assert.deepEqual(opened("Feed in autumn [1, 2]. Again [1, 2], and [2].", citations),
    [["[1, 2]", [1, 2]], ["[1, 2]", [1, 2]]]);
  const [mention] = locateMarkers("Feed [1, 2].", citations);
  assert.equal(mention.citation, citations[0]);
  assert.deepEqual(mention.citations, citations);
});

test("[1] then [1, 2]: [1] opens source 1, [1, 2] both; [2] then [1, 2]: both, source 1 first", () => {
  assert.deepEqual(opened("First [1], then [1, 2].", [source(1, "[1]"), source(2, "[1, 2]")]),
    [["[1]", [1]], ["[1, 2]", [1, 2]]]);
  assert.deepEqual(opened("First [2], then [1, 2].", [source(2, "[2]"), source(1, "[1, 2]")]),
    [["[2]", [2]], ["[1, 2]", [1, 2]]]);
});

test("[7, 1] where 7 names nothing opens source 1 alone; a marker that opens nothing is no mention", () => {
  assert.deepEqual(opened("Both [7, 1].", [source(1, "[7, 1]")]), [["[7, 1]", [1]]]);
  assert.deepEqual(opened("Both [7, 1], [7] and [7-8].", [source(1, "[1]")]), [["[7, 1]", [1]]]);
  assert.deepEqual(opened("Nothing [4], [4, 5], [^4] or \u30104\u3011.", numbered(3)), []);
});

test(`a range opens its numbers when it goes up, both ends are known and it is at most MAX_RANGE (${MAX_RANGE}) long`, () => {
  const eleven = numbered(11);
  const ten = Array.from({ length: 10 }, (_, i) => i + 1);
  assert.deepEqual(opened("[1-10] [2\u201311] [1-11] [3-1] [2-2] [1, 3-5]", eleven),
    [["[1-10]", ten], ["[2\u201311]", ten.map((n) => n + 1)], ["[1, 3-5]", [1, 3, 4, 5]]]);
  // [1-4] over three sources: its end names nothing, so the whole range names nothing
  assert.deepEqual(opened("[1-4] [1, 2-4] [2-3]", numbered(3)), [["[1, 2-4]", [1]], ["[2-3]", [2, 3]]]);
  // a range that is some citation's marker: the service expanded it
  const shared = [source(1, "[1-3]"), source(2, "[1-3]"), source(3, "[1-3]")];
  assert.deepEqual(opened("All of [1-3].", shared), [["[1-3]", [1, 2, 3]]]);
});

test("a footnote definition line counts as a mention; one that is a link definition is a link", () => {
  const text = "Feed in autumn [^1].\n\n[^1]: The apiary handbook.\n   [^2]: Indented three.\n";
  assert.deepEqual(opened(text, numbered(2)), [["[^1]", [1]], ["[^1]", [1]], ["[^2]", [2]]]);
  const linked = "Feed in autumn [^1].\n\n[^1]: https://example.org/guide\n";
  assert.deepEqual(opened(linked, numbered(1)), []);
});

test("no style's marker in code, a link, a link's text, an autolink or an HTML comment", () => {
  const hidden = [
    "`[1, 2]`", "`[1-3]`", "`[^1]`", "`\u30101\u3011`", "```\n[1, 2] [^1] \u30101\u2020s\u3011\n```",
    "    [1-3] indented", "[1, 2](https://example.org/a)", "[see [1, 2]](https://example.org/a)",
    "[see \u30101\u3011](https://example.org/a)", "[\u30101\u2020source\u3011 and [2]](https://x)",
    "[^1](https://example.org/a)", "<https://x.org/[1-3]>",
    "<!-- [1, 2] [^1] \u30101\u3011 -->", "[1, 2][docs]\n\n[docs]: https://example.org/d",
  ];
  for (const text of hidden) {
    assert.deepEqual(opened(text, numbered(3)), [], text);
    assert.deepEqual(findWrittenMarkers(text), [], text); // the middleware cites none either
  }
  const shown = "`code` [1, 2] then [^3] and \u30101\u3011 (see [2-3])";
  assert.deepEqual(opened(shown, numbered(3)),
    [["[1, 2]", [1, 2]], ["[^3]", [3]], ["\u30101\u3011", [1]], ["[2-3]", [2, 3]]]);
});

test("\u30103:0\u2020source\u3011 (another tool's index pair), \u30101,2\u3011, spaces inside brackets, leading zeros, a line break and over-long markers name nothing", () => {
  const text = `\u30103:0\u2020source\u3011 \u30101,2\u3011 \u30101-2\u3011 [ 1] [1 ] [01] [1 - 2] [1-2-3] [1,] [^01] ` +
    `\u30101\u2020${"x".repeat(61)}\u3011 \u30101\u2020a\nb\u3011 ` +
    `[${Array.from({ length: 30 }, (_, i) => (i % 3) + 1).join(", ")}]`;
  assert.deepEqual(opened(text, numbered(3)), []);
  assert.deepEqual(findWrittenMarkers(text), []);
  assert.deepEqual(opened(`\u30101\u2020${"x".repeat(60)}\u3011`, numbered(1)).map(([, n]) => n), [[1]]);
});

test("findWrittenMarkers: each marker as written, its style and the numbers and ranges it names", () => {
  const text = "See [1, 3\u20135], [^2], \u30104\u2020src\u3011 and [2]; not `[9]`.";
  assert.deepEqual(findWrittenMarkers(text).map(({ start, end, ...rest }) => [text.slice(start, end), rest]), [
    ["[1, 3\u20135]", { text: "[1, 3\u20135]", style: "grouped", items: [1, { from: 3, to: 5 }] }],
    ["[^2]", { text: "[^2]", style: "footnote", items: [2] }],
    ["\u30104\u2020src\u3011", { text: "\u30104\u2020src\u3011", style: "fullwidth", items: [4] }],
    ["[2]", { text: "[2]", style: "numbered", items: [2] }],
  ]);
});

test("readMarker reads one whole marker text of any style; a plugin's own text or a part of a marker is none", () => {
  assert.deepEqual(readMarker("[1\u20133, 5]"), { style: "grouped", items: [{ from: 1, to: 3 }, 5] });
  assert.deepEqual(readMarker("\u30102\u2020guide\u3011"), { style: "fullwidth", items: [2] });
  assert.deepEqual(readMarker("[^4]"), { style: "footnote", items: [4] });
  assert.deepEqual(readMarker("[7]"), { style: "numbered", items: [7] });
  for (const none of ["[S1]", "x[1]", "[1]x", "[1][2]", "\u30101,2\u3011", "[0]", "[1234567890]"]) {
    assert.equal(readMarker(none), null, none);
  }
});

test("a plugin's own marker text is found where written; a ref opens its citation, a left-out ref none", () => {
  const a = source(1, "[a]");
  const text = `See [a] and ${a.record.node.ref}; not https://example.org/moca/x@1.0.0#y.md.`;
  assert.deepEqual(locateMarkers(text, [a]).map((m) => [text.slice(m.start, m.end), m.citations]), [
    ["[a]", [a]], [a.record.node.ref, [a]], ["https://example.org/moca/x@1.0.0#y.md", []],
  ]);
});

test("every style is read in linear time: 100,000 grouped markers beside unclosed ones", () => {
  const text = "[1, 2] [1, 2, ".repeat(100_000);
  assert.equal(locateMarkers(text, numbered(2)).length, 100_000);
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
