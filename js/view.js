// The source list and a marker's card as element trees, which moca-agui/dom builds with
// document.createElement and moca-agui/react with React: one layout, one set of rules.
// Every record field is a string child (text), never markup; an href only comes from safeUrl.
import { LABEL_END, LABEL_LIMIT, safeUrl, shortText, trustBadges, withReadableDates } from "./index.js";

/** @typedef {import("./index.js").Badge} Badge */
/** @typedef {import("./index.js").Citation} Citation */
/** @typedef {import("./index.js").Evidence} Evidence */
/** @typedef {import("./index.js").MessageCitations} MessageCitations */
/** @typedef {{ locale?: string, timeZone?: string }} Dates */
/**
 * An element: tag, attributes (`key` only for React), children; a child is text or an element.
 * @typedef {[string, Record<string, string>, ...Child[]]} Tree
 * @typedef {Tree | string | null} Child
 */

/** The warning states a card names, most serious first (spec §4, and what the badges warn). */
const WARNINGS = new Set(["deprecated", "not-in-force", "superseded", "stale", "contested", "draft",
  "unsigned-package", "evidence-not-matched"]);

/**
 * A message's sources: one line per source, its details in a closed disclosure.
 * @param {MessageCitations} value @param {Dates} dates @returns {Tree}
 */
export function sourcesTree(value, dates) {
  return ["section", { class: "moca-sources", "aria-label": "Sources" },
    value.computedAt
      ? ["p", { class: "computed-at" }, "Trust as of ", ...dated(value.computedAt, dates)]
      : null,
    value.citations.length
      ? ["ol", { class: "source-list" }, ...value.citations.map((citation) =>
          /** @type {Tree} */ (["li", { key: citation.record.node.ref }, sourceTree(citation, dates)]))]
      : ["p", { class: "no-sources" }, "No sources from the loaded packages."]];
}

/**
 * One source: marker, title and every badge on its line; each field before a badge cut
 * (whole on hover), so no field's length pushes a badge out of sight.
 * @param {Citation} citation @param {Dates} dates @returns {Tree}
 */
function sourceTree({ marker, markers, record }, dates) {
  const { node, package: pkg } = record;
  const badges = trustBadges(record);
  const labels = markers ?? (marker ? [marker] : []);
  return ["article", { class: "source", "data-ref": node.ref, tabindex: "-1" },
    ["div", { class: "line" },
      labels.length ? short("span", { class: "marker" }, labels.join(" ")) : null,
      short("h3", { class: "title" }, node.title || node.path),
      ["ul", { class: "badges", "aria-label": "Trust" }, ...badges.map((b) =>
        short("li", { key: b.key + b.label + b.detail, class: `badge ${b.tone}`, "data-badge": b.key },
          b.label, LABEL_LIMIT, LABEL_END))]],
    ["details", { class: "more" },
      ["summary", {}, "Details"],
      ["p", { class: "package" }, short("span", { class: "id" }, pkg.id), " ",
        short("span", { class: "version" }, `version ${pkg.version}`)],
      ["p", { class: "ref" }, short("code", {}, node.ref)],
      ["ul", { class: "trust-details" }, ...badges.map((b) =>
        /** @type {Tree} */ (["li", { key: b.key + b.label + b.detail, "data-detail": b.key },
          ...dated(b.detail, dates)]))],
      node.description ? ["p", { class: "description" }, node.description] : null,
      record.evidence?.length
        ? ["ul", { class: "evidence" }, ...record.evidence.map((entry, i) => evidenceTree(entry, i))]
        : null,
      typeof record.text === "string" ? ["pre", { class: "text" }, record.text] : null]];
}

/** @param {Evidence} entry @param {number} index @returns {Tree} */
function evidenceTree(entry, index) {
  const source = entry.source || {};
  const name = String(source.title || source.id || "source");
  const url = safeUrl(source.url) || safeUrl(source.resource);
  const state = entry.matched === true ? "matched" : entry.matched === false ? "not matched" : "not checked";
  const exact = entry.selector?.exact;
  return ["li", { key: String(index) },
    url ? short("a", { href: url, rel: "noopener noreferrer nofollow" }, name)
      : short("span", { class: "source-name" }, name),
    exact ? " " : null, exact ? short("q", {}, exact) : null,
    " ", ["span", { class: `evidence-${state.replace(" ", "-")}` }, state],
    entry.note ? " " : null, entry.note ? short("span", { class: "note" }, entry.note) : null];
}

/**
 * A marker's card: for each source it opens, the title, package and version, every warning
 * state, then the strongest verification (a signed review with a positive outcome, else the
 * package signature, else the author's own claim, which says it is one).
 * @param {ReadonlyArray<Citation>} citations @param {string} id @returns {Tree}
 */
export function cardTree(citations, id) {
  return ["span", { class: "moca-card", role: "tooltip", id },
    ...citations.map(({ record }) => {
      const badges = trustBadges(record);
      const shown = [...badges.filter((b) => WARNINGS.has(b.key)), strongest(badges)];
      return /** @type {Tree} */ (["span", { class: "card-source", "data-ref": record.node.ref },
        short("span", { class: "title" }, record.node.title || record.node.path),
        ["span", { class: "package" }, short("span", { class: "id" }, record.package.id), ", ",
          short("span", { class: "version" }, `version ${record.package.version}`)],
        ["span", { class: "badges" }, ...shown.flatMap((b) => b ? [short("span",
          { class: `badge ${b.tone}`, "data-badge": b.key }, b.label, LABEL_LIMIT, LABEL_END), " "] : [])]]);
    })];
}

/** @param {Badge[]} badges @returns {Badge | null} */
function strongest(badges) {
  const good = badges.find((b) => b.key === "attested-review" && b.tone === "good");
  return good ?? badges.find((b) => b.key === "signed-package")
    ?? badges.find((b) => b.key === "declared-verification") ?? null;
}

/**
 * An element showing `value` cut at a field's length, the whole value on hover (title).
 * @param {string} tag @param {Record<string, string>} attributes @param {unknown} value
 * @param {number} [limit] @param {number} [keepEnd] @returns {Tree}
 */
function short(tag, attributes, value, limit, keepEnd) {
  const { text, whole } = shortText(value, limit, keepEnd);
  return [tag, whole === null ? attributes : { ...attributes, title: whole }, text];
}

/** `text` with each date readable, the ISO time on hover. @param {string} text @param {Dates} dates
 * @returns {Child[]} */
function dated(text, dates) {
  return withReadableDates(text, dates).map((part, i) => typeof part === "string"
    ? part
    : ["time", { key: String(i), datetime: part.iso, title: part.iso }, part.readable]);
}
