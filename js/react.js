// moca-agui/react: a hook for the citations of one message, the source list, and the answer's
// markers as controls. Text only: React escapes every string; a link's href only ever comes
// from safeUrl; nothing remote is loaded (no image, no frame, no style from a record).
import { createElement as h, useCallback, useEffect, useRef, useSyncExternalStore } from "react";
import { citeMarkers } from "./dom.js";
import { sourcesTree } from "./view.js";

/** @typedef {import("./index.js").MocaCitations} MocaCitations */
/** @typedef {import("./index.js").MessageCitations} MessageCitations */
/** @typedef {import("./react.js").MocaSourcesProps} MocaSourcesProps */
/** @typedef {import("./react.js").MocaMarkersProps} MocaMarkersProps */
/** @typedef {import("./view.js").Tree} Tree */
/** @typedef {import("./view.js").Child} Child */

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
 * A message's sources, one line each, details behind a disclosure; nothing before its event.
 * @param {MocaSourcesProps} props
 */
export function MocaSources({ value, locale, timeZone }) {
  return value ? element(sourcesTree(value, { locale, timeZone })) : null;
}

/**
 * The markers of what `ref` renders as controls, after each render and each change of its
 * elements (a Markdown renderer streaming into it).
 * @param {import("react").RefObject<Element | null>} ref
 * @param {MessageCitations | null | undefined} value
 */
export function useMocaMarkers(ref, value) {
  useEffect(() => {
    const root = ref.current;
    if (!root || !value) return undefined;
    citeMarkers(root, value);
    const observer = new MutationObserver(() => citeMarkers(root, value));
    observer.observe(root, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  });
}

/** @param {MocaMarkersProps} props */
export function MocaMarkers({ value, children }) {
  const ref = useRef(/** @type {HTMLDivElement | null} */ (null));
  useMocaMarkers(ref, value);
  return h("div", { className: "moca-markers", ref }, children);
}

/** React's names of the attributes the trees use. */
const PROPS = /** @type {Record<string, string>} */ ({ class: "className", tabindex: "tabIndex",
  datetime: "dateTime" });

/** The React element `tree` describes. @param {Tree} tree @returns {import("react").ReactElement} */
function element([tag, attributes, ...children]) {
  /** @type {Record<string, string>} */
  const props = {};
  for (const [name, value] of Object.entries(attributes)) props[PROPS[name] ?? name] = value;
  return h(tag, props, ...children.map((/** @type {Child} */ child) =>
    child === null || typeof child === "string" ? child : element(child)));
}
