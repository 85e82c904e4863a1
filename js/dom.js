// moca-agui/dom: the answer's markers as controls with a card, and the source list, for any
// web page. Text only: elements are made with createElement and filled with text nodes;
// nothing is written as HTML, no listener is an attribute, nothing remote is loaded.
import { locateMarkers } from "./index.js";
import { cardTree, sourcesTree } from "./view.js";

/** @typedef {import("./index.js").Citation} Citation */
/** @typedef {import("./index.js").Mention} Mention */
/** @typedef {import("./index.js").MessageCitations} MessageCitations */
/** @typedef {import("./dom.js").CiteOptions} CiteOptions */
/** @typedef {import("./dom.js").SourcesOptions} SourcesOptions */
/** @typedef {import("./view.js").Tree} Tree */
/** @typedef {import("./view.js").Child} Child */

/** Elements whose text is no marker: code, and what is already a link or a control. */
const NOT_TEXT = "code, pre, kbd, samp, script, style, textarea, a, button, .moca-mention, .moca-not-a-source";
/** Elements that end a run of text: a marker never spans two of them. */
const BLOCK = /^(?:P|DIV|LI|TD|TH|H[1-6]|BLOCKQUOTE|DD|DT|SECTION|ARTICLE|FIGCAPTION|SUMMARY|BR|HR|UL|OL|TABLE|TR)$/;

/**
 * Wraps each marker of the answer rendered in `element` in a control with its card.
 * @param {Element} element @param {MessageCitations | null | undefined} value
 * @param {CiteOptions} [options] @returns {number}
 */
export function citeMarkers(element, value, options = {}) {
  if (!value) return 0;
  let wrapped = 0;
  for (const run of textRuns(element)) {
    try {
      wrapped += citeRun(element, run, value, options);
    } catch (error) { // the answer stays as it was rendered
      console.warn("moca-agui: left a run of the answer's text as it was", error);
    }
  }
  return wrapped;
}

/**
 * Wraps the markers of one run of text nodes; how many.
 * @param {Element} element @param {Text[]} run @param {MessageCitations} value
 * @param {CiteOptions} options
 */
function citeRun(element, run, value, options) {
  const text = run.map((node) => node.data).join("");
  const mentions = locateMarkers(text, value.citations);
  // Backwards, so that the offsets of the mentions before stay where they are.
  for (const mention of [...mentions].reverse()) {
    const citations = opened(mention);
    const range = rangeOf(run, mention.start, mention.end);
    const shown = range.toString();
    const control = citations.length ? mentionControl(element, shown, citations, options)
      : notASource(element.ownerDocument, shown);
    range.deleteContents();
    range.insertNode(control);
  }
  return mentions.length;
}

/**
 * A message's sources as `<section class="moca-sources">`.
 * @param {MessageCitations} value @param {SourcesOptions} [options] @returns {HTMLElement}
 */
export function renderSources(value, options = {}) {
  return /** @type {HTMLElement} */ (build(document, sourcesTree(value, options)));
}

/**
 * Highlights and focuses the listed sources of `citations` in `sources`.
 * @param {ParentNode} sources @param {ReadonlyArray<Citation>} citations
 * @returns {HTMLElement | null}
 */
export function showSources(sources, citations) {
  const refs = new Set(citations.map((c) => c.record.node.ref));
  /** @type {HTMLElement | null} */
  let first = null;
  for (const source of sources.querySelectorAll("article.source")) {
    const listed = source instanceof HTMLElement && refs.has(source.dataset.ref ?? "");
    source.classList.toggle("selected", listed);
    if (listed && !first) first = /** @type {HTMLElement} */ (source);
  }
  if (first) {
    first.scrollIntoView({ block: "nearest" });
    first.focus({ preventScroll: true });
  }
  return first;
}

/** @param {Mention} mention @returns {Citation[]} */
function opened(mention) {
  // `citations` comes with shared markers ([1, 2]); a client without it has `citation`.
  const { citations } = /** @type {Mention & { citations?: Citation[] }} */ (mention);
  return citations ?? (mention.citation ? [mention.citation] : []);
}

/**
 * The runs of text nodes of `element` a marker may be read in: each a block's text outside
 * code, links and controls, cut where such an element stood.
 * @param {Element} element @returns {Text[][]}
 */
function textRuns(element) {
  /** @type {Text[][]} */
  const runs = [];
  /** @type {Text[]} */
  let run = [];
  const cut = () => {
    if (run.length) runs.push(run);
    run = [];
  };
  /** @param {Node} parent */
  const walk = (parent) => {
    for (const node of parent.childNodes) {
      if (node.nodeType === Node.TEXT_NODE) run.push(/** @type {Text} */ (node));
      else if (node instanceof Element) {
        const block = BLOCK.test(node.tagName.toUpperCase());
        if (block || node.matches(NOT_TEXT)) cut();
        if (!node.matches(NOT_TEXT)) walk(node);
        if (block) cut();
      }
    }
  };
  walk(element);
  cut();
  return runs;
}

/** A Range over the characters `start` to `end` of the joined text of `run`.
 * @param {Text[]} run @param {number} start @param {number} end */
function rangeOf(run, start, end) {
  const range = run[0].ownerDocument.createRange();
  let at = 0;
  for (const node of run) {
    const length = node.data.length;
    if (start >= at && start < at + length) range.setStart(node, start - at);
    if (end > at && end <= at + length) {
      range.setEnd(node, end - at);
      break;
    }
    at += length;
  }
  return range;
}

/**
 * `<span class="moca-mention">`: the marker's button, keeping its text, and its card.
 * @param {Element} root @param {string} text @param {Citation[]} citations @param {CiteOptions} options
 */
function mentionControl(root, text, citations, options) {
  const doc = root.ownerDocument;
  const id = `moca-card-${Math.random().toString(36).slice(2, 12)}`;
  const button = doc.createElement("button");
  button.type = "button";
  button.className = "moca-cite";
  button.setAttribute("aria-describedby", id);
  button.dataset.ref = citations.map((c) => c.record.node.ref).join(" ");
  button.append(text);
  const card = /** @type {HTMLElement} */ (build(doc, cardTree(citations, id)));
  card.hidden = true;
  const mention = doc.createElement("span");
  mention.className = "moca-mention";
  mention.append(button, card);
  const show = () => {
    card.hidden = false;
    keepInView(card);
  };
  const hide = () => { card.hidden = true; };
  mention.addEventListener("mouseenter", show);
  mention.addEventListener("mouseleave", () => { if (doc.activeElement !== button) hide(); });
  button.addEventListener("focus", show);
  button.addEventListener("blur", hide);
  button.addEventListener("keydown", (event) => { if (event.key === "Escape") hide(); });
  button.addEventListener("click", () => {
    const list = options.sources ?? listAfter(root);
    if (list) showSources(list, citations);
  });
  return mention;
}

/** Moves a shown card left, or above its marker, as far as it takes to be in the window
 * (its scroll bars excluded)
 * (CSSOM only: no style attribute is written, which a strict CSP would refuse).
 * @param {HTMLElement} card */
function keepInView(card) {
  const { clientWidth: width, clientHeight: height } = card.ownerDocument.documentElement;
  card.style.transform = "";
  card.classList.remove("above");
  const margin = 8;
  const box = card.getBoundingClientRect();
  const over = Math.min(box.right - (width - margin), box.left - margin);
  if (over > 0) card.style.transform = `translateX(${-over}px)`;
  const marker = card.parentElement?.getBoundingClientRect();
  if (marker && box.bottom > height - margin && marker.top - box.height - 4 > margin) {
    card.classList.add("above");
  }
}

/** The first `.moca-sources` after `root` in its document, else the first in it.
 * @param {Element} root @returns {Element | null} */
function listAfter(root) {
  const lists = [...root.ownerDocument.querySelectorAll(".moca-sources")];
  return lists.find((list) => root.compareDocumentPosition(list) & Node.DOCUMENT_POSITION_FOLLOWING)
    ?? lists[0] ?? null;
}

/** A ref the service left out, flagged: not a source.
 * @param {Document} doc @param {string} text */
function notASource(doc, text) {
  return build(doc, ["span", { class: "moca-not-a-source",
    title: "Not among the sources the Reader returned" },
    ["span", { class: "left-out" }, text], " ", ["span", { class: "flag" }, "not a source"]]);
}

/** The element `tree` describes, its strings as text nodes.
 * @param {Document} doc @param {Tree} tree @returns {Element} */
function build(doc, [tag, attributes, ...children]) {
  const element = doc.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name !== "key") element.setAttribute(name, value);
  }
  for (const child of children) {
    if (typeof child === "string") element.append(child);
    else if (child) element.append(build(doc, child));
  }
  return element;
}
