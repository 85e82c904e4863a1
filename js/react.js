// moca-agui/react: a hook for the citations of one message and a component that shows them.
// Text only: React escapes every string; a link's href only ever comes from safeUrl; nothing
// remote is loaded (no image, no frame, no style from a record).
import { createElement as h, Fragment, useCallback, useSyncExternalStore } from "react";
import { LABEL_END, LABEL_LIMIT, safeUrl, shortText, trustBadges, withReadableDates } from "./index.js";

/** @typedef {import("./index.js").MocaCitations} MocaCitations */
/** @typedef {import("./index.js").MessageCitations} MessageCitations */
/** @typedef {import("./index.js").Citation} Citation */
/** @typedef {import("./index.js").Evidence} Evidence */
/** @typedef {import("./react.js").MocaSourcesProps} MocaSourcesProps */

/**
 * The citations of message `messageId` in `store`, re-rendering when they arrive.
 * @param {MocaCitations} store @param {string | undefined} messageId
 * @returns {MessageCitations | undefined}
 */
export function useMocaCitations(store, messageId) {
  const subscribe = useCallback((/** @type {() => void} */ l) => store.subscribe(l), [store]);
  const snapshot = () => (messageId === undefined ? undefined : store.get(messageId));
  return useSyncExternalStore(subscribe, snapshot, snapshot);
}

/**
 * A message's sources with their trust badges; nothing before its event arrives.
 * @param {MocaSourcesProps} props
 */
export function MocaSources({ value, locale, timeZone }) {
  if (!value) return null;
  const dates = { locale, timeZone };
  return h("section", { className: "moca-sources" },
    value.computedAt
      ? h("p", { className: "computed-at" }, "Trust as of ", ...dated(value.computedAt, dates))
      : null,
    value.citations.length
      ? value.citations.map((citation) => h(Source, { key: citation.record.node.ref, citation, dates }))
      : h("p", { className: "no-sources" }, "No sources from the loaded packages."));
}

/**
 * An element showing `value` cut at a field's length, the whole value on hover (title).
 * @param {string} tag @param {Record<string, unknown>} props @param {unknown} value
 * @param {number} [limit] @param {number} [keepEnd]
 */
function short(tag, props, value, limit, keepEnd) {
  const { text, whole } = shortText(value, limit, keepEnd);
  return h(tag, whole === null ? props : { ...props, title: whole }, text);
}

/**
 * The badges right under the title, every field before them cut short: no field's length can
 * push a badge out of sight (with or without a style sheet). Details, description and text
 * follow, whole: a style sheet wraps them (the demo's: `.source { overflow-wrap: anywhere }`).
 * @param {{ citation: Citation, dates: { locale?: string, timeZone?: string } }} props
 */
function Source({ citation: { marker, markers, record }, dates }) {
  const { node, package: pkg } = record;
  const badges = trustBadges(record);
  const labels = markers ?? (marker ? [marker] : []);
  return h("article", { className: "source", "data-ref": node.ref },
    h("header", null,
      labels.length ? short("span", { className: "marker" }, labels.join(" ")) : null,
      short("h3", { className: "title" }, node.title || node.path)),
    h("ul", { className: "badges" }, badges.map((b) =>
      short("li", { key: b.key + b.label + b.detail, className: `badge ${b.tone}`, "data-badge": b.key },
        b.label, LABEL_LIMIT, LABEL_END))),
    h("p", { className: "package" }, short("span", { className: "id" }, pkg.id), " ",
      short("span", { className: "version" }, `version ${pkg.version}`)),
    h("p", { className: "ref" }, short("code", {}, node.ref)),
    h("ul", { className: "trust-details" }, badges.map((b) =>
      h("li", { key: b.key + b.label + b.detail, "data-detail": b.key }, ...dated(b.detail, dates)))),
    node.description ? h("p", { className: "description" }, node.description) : null,
    record.evidence?.length
      ? h("ul", { className: "evidence" }, record.evidence.map((entry, i) => h(EvidenceItem, { key: i, entry })))
      : null,
    typeof record.text === "string"
      ? h("details", null, h("summary", null, "Text"), h("pre", { className: "text" }, record.text))
      : null);
}

/** @param {{ entry: Evidence }} props */
function EvidenceItem({ entry }) {
  const source = entry.source || {};
  const name = String(source.title || source.id || "source");
  const url = safeUrl(source.url) || safeUrl(source.resource);
  const state = entry.matched === true ? "matched" : entry.matched === false ? "not matched" : "not checked";
  const exact = entry.selector?.exact;
  return h("li", null,
    url ? short("a", { href: url, rel: "noopener noreferrer nofollow" }, name)
      : short("span", { className: "source-name" }, name),
    exact ? h(Fragment, null, " ", short("q", {}, exact)) : null,
    " ", h("span", { className: `evidence-${state.replace(" ", "-")}` }, state),
    entry.note ? h(Fragment, null, " ", short("span", { className: "note" }, entry.note)) : null);
}

/** @param {string} text @param {{ locale?: string, timeZone?: string }} dates */
function dated(text, dates) {
  return withReadableDates(text, dates).map((part, i) => typeof part === "string"
    ? part
    : h("time", { key: i, dateTime: part.iso, title: part.iso }, part.readable));
}
