// The demo's chat page: streams an AG-UI run from POST / and shows each answer's sources.
//
// The client rules of MOCA citations over AG-UI 0.6.0 (section 4), the same as the Python
// helpers in moca_agui.client: an event of an unknown version, for a message this page does
// not have, or any unknown CUSTOM event is ignored; invalid records are skipped with a
// warning; sources are keyed by node.ref; trust badges follow moca_agui.client.trust_badges
// (a declared verification is never shown as a review); every record field is data, put in
// the page with textContent only; only http(s) URLs become links; nothing remote is loaded.
"use strict";

const EVENT_NAME = "moca.citations";
const EVENT_VERSION = 1;
const DIGEST = /^sha256:[a-f0-9]{64}$/;
// Review outcomes shown in the good tone (lower-cased): moca_agui.client.POSITIVE_OUTCOMES.
const POSITIVE_OUTCOMES = new Set(["accurate", "approved", "correct"]);
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

// -- records and trust ----------------------------------------------------------------

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isString = (v) => typeof v === "string";
const isBool = (v) => typeof v === "boolean";
const strings = (v) => Array.isArray(v) && v.every(isString);

const IRI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$/;
const isNumber = (v) => typeof v === "number" && Number.isFinite(v);
const isCount = (v) => Number.isInteger(v) && v >= 0;
const isDigest = (v) => isString(v) && DIGEST.test(v);
const arrayOf = (check) => (v) => Array.isArray(v) && v.every(check);
const byClaim = (v) => isObject(v) && isString(v.by) && (v.at === undefined || isString(v.at));

// An object with `required` fields, `optional` ones, and (when `closed`) no others; each
// field checked by its function. Returns the first problem, or null.
function shape(value, where, required, optional, closed) {
  if (!isObject(value)) return `${where}: not an object`;
  for (const [key, check] of Object.entries(required)) {
    if (!(key in value)) return `${where}.${key}: missing`;
    if (!check(value[key])) return `${where}.${key}`;
  }
  for (const [key, check] of Object.entries(optional)) {
    if (key in value && !check(value[key])) return `${where}.${key}`;
  }
  if (closed) {
    const extra = Object.keys(value).filter((key) => !(key in required) && !(key in optional));
    if (extra.length) return `${where}.${extra[0]}: not allowed`;
  }
  return null;
}

const RECORD_FIELDS = {
  span: (v) => shape(v, "span", { start: isCount, end: isCount }, {}, true) === null,
  text: isString,
  evidence: arrayOf((e) => shape(e, "evidence", { source: isObject },
    { selector: isObject, note: isString, matched: isBool }, false) === null),
  concepts: arrayOf((v) => isString(v) && IRI.test(v)),
  audience: isString,
  profiles: strings,
  score: isNumber,
  retrieval: (v) => shape(v, "retrieval",
    { via: (x) => ["search", "requires", "parts", "narrower", "related"].includes(x) },
    { from: isString }, true) === null,
};

// citation-record.schema.json (v1), rule for rule: moca_agui.as_record's checks.
function recordProblem(record) {
  const top = shape(record, "record", { package: isObject, node: isObject, trust: isObject },
    RECORD_FIELDS, true);
  if (top) return top.replace(/^record\./, "");
  return shape(record.package, "package",
      { id: isString, version: isString, digest: isDigest, signed: isBool },
      { signers: strings }, true) ||
    shape(record.node, "node",
      { id: isString, path: isString, type: isString, ref: (v) => isString(v) && v.length > 0 },
      { locale: isString, title: isString, description: isString, tags: strings, digest: isDigest },
      true) ||
    shape(record.trust, "trust",
      { status: (v) => ["draft", "stable", "deprecated"].includes(v),
        declaredVerified: arrayOf(byClaim),
        attestedReviews: arrayOf((r) => shape(r, "review",
          { reviewer: isString, reviewedAt: isString, outcome: isString, signer: isString },
          { scope: isString }, false) === null),
        stale: isBool, inForce: isBool, superseded: isBool, contested: isBool },
      { generated: (v) => v === null || byClaim(v), staleAfter: isString, validFrom: isString,
        validUntil: isString, supersededBy: strings, contestedBy: strings },
      true);
}

function badge(key, label, tone, detail) {
  return { key, label, tone, detail };
}

// The trust badges of a record, most serious first: moca_agui.client.trust_badges.
function trustBadges(record) {
  const trust = record.trust;
  const pkg = record.package;
  const badges = [];
  if (trust.status === "deprecated") {
    badges.push(badge("deprecated", "Deprecated", "danger", "The author deprecated this node."));
  }
  if (!trust.inForce) {
    const parts = [];
    if (trust.validFrom) parts.push(`from ${trust.validFrom}`);
    if (trust.validUntil) parts.push(`until ${trust.validUntil}`);
    const window = parts.length ? ` (valid ${parts.join(" ")})` : "";
    badges.push(badge("not-in-force", "Not in force", "danger", `Not in force${window}.`));
  }
  if (trust.superseded) {
    const by = (trust.supersededBy || []).join(", ") || "another loaded package";
    badges.push(badge("superseded", "Superseded", "danger", `Superseded by ${by}.`));
  }
  if (trust.stale) {
    const after = trust.staleAfter ? ` (${trust.staleAfter})` : "";
    badges.push(badge("stale", "Stale", "warning", `Past its review date${after}.`));
  }
  if (trust.contested) {
    const by = (trust.contestedBy || []).join(", ") || "another source";
    badges.push(badge("contested", "Contested", "warning", `Contested by ${by}.`));
  }
  if (trust.status === "draft") {
    badges.push(badge("draft", "Draft", "warning", "The author marked this node a draft."));
  }
  for (const review of trust.attestedReviews) {
    const scope = review.scope ? ` Scope: ${review.scope}.` : "";
    const detail = `Reviewed by ${review.reviewer} on ${review.reviewedAt}: ${review.outcome}. ` +
      `Signed by ${review.signer}.${scope}`;
    const outcome = String(review.outcome);
    const tone = POSITIVE_OUTCOMES.has(outcome.toLowerCase()) ? "good" : "warning";
    badges.push(badge("attested-review", `Reviewed: ${outcome} (signed)`, tone, detail));
  }
  for (const claim of trust.declaredVerified) {
    const at = claim.at ? ` on ${claim.at}` : "";
    const detail = `The author says ${claim.by} verified it${at}. Not signed, not checked.`;
    badges.push(badge("declared-verification", "Verified, as declared", "info", detail));
  }
  if (pkg.signed) {
    const signers = (pkg.signers || []).join(", ") || "a trusted publisher";
    badges.push(badge("signed-package", "Signed package", "good",
      `The package signature verified against the host's trust root: ${signers}.`));
  } else {
    badges.push(badge("unsigned-package", "Unsigned package", "warning",
      "No package signature verified against the host's trust root."));
  }
  const generated = trust.generated;
  if (generated) {
    const at = generated.at ? ` at ${generated.at}` : "";
    badges.push(badge("generated", "Generated", "info", `Generated by ${generated.by}${at}.`));
  }
  const states = (record.evidence || []).map((e) => (isBool(e.matched) ? e.matched : null));
  const count = (value) => states.filter((s) => s === value).length;
  if (count(true)) {
    badges.push(badge("evidence-matched", `Evidence matched (${count(true)})`, "good",
      "Quoted evidence found in the cited source: the quote is there, not proof."));
  }
  if (count(false)) {
    badges.push(badge("evidence-not-matched", `Evidence not matched (${count(false)})`, "danger",
      "Quoted evidence NOT found in the cited source."));
  }
  if (count(null)) {
    badges.push(badge("evidence-unchecked", `Evidence not checked (${count(null)})`, "info",
      "Evidence the Reader could not check (a source outside the package)."));
  }
  return badges;
}

// `value` if it is an absolute http(s) URL safe to link to, else null: moca_agui.client.safe_url.
function safeUrl(value) {
  if (!isString(value) || /[\u0000-\u0020\\"'<>`\u007f]/.test(value)) return null;
  let url;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || !url.hostname) return null;
  return value;
}

// -- the DOM, text only ---------------------------------------------------------------

function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
  for (const child of children) {
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function renderRecord(record, marker, id) {
  const node = record.node;
  const header = el("header", {});
  if (marker) header.append(el("span", { class: "marker" }, marker), " ");
  header.append(el("h3", { class: "title" }, node.title || node.path));
  const article = el("article", { class: "source", id, "data-ref": node.ref }, header,
    el("p", { class: "package" }, record.package.id, " ",
      el("span", { class: "version" }, `version ${record.package.version}`)),
    el("p", { class: "ref" }, el("code", {}, node.ref)));
  const badges = el("ul", { class: "badges" });
  const details = el("ul", { class: "trust-details" }); // what each badge means, as visible text
  for (const b of trustBadges(record)) {
    badges.append(el("li", { class: `badge ${b.tone}`, "data-badge": b.key }, b.label));
    details.append(el("li", { "data-detail": b.key }, b.detail));
  }
  article.append(badges, details);
  if (node.description) article.append(el("p", { class: "description" }, node.description));
  if (record.evidence && record.evidence.length) {
    const list = el("ul", { class: "evidence" });
    for (const entry of record.evidence) list.append(el("li", {}, ...evidenceParts(entry)));
    article.append(list);
  }
  if (isString(record.text)) {
    article.append(el("details", {}, el("summary", {}, "Text"), el("pre", { class: "text" }, record.text)));
  }
  return article;
}

function evidenceParts(entry) {
  const source = entry.source || {};
  const name = String(source.title || source.id || "source");
  const url = safeUrl(source.url) || safeUrl(source.resource);
  const parts = [url ? el("a", { href: url, rel: "noopener noreferrer nofollow" }, name) : name];
  const exact = isObject(entry.selector) ? entry.selector.exact : undefined;
  if (exact) parts.push(" ", el("q", {}, String(exact)));
  const state = entry.matched === true ? "matched" : entry.matched === false ? "not matched" : "not checked";
  parts.push(" ", el("span", { class: `evidence-${state.replace(" ", "-")}` }, state));
  if (entry.note) parts.push(" ", el("span", { class: "note" }, String(entry.note)));
  return parts;
}

// The answer's text, each mention of a cited ref or marker a link to its source.
function renderAnswer(container, text, sources) {
  const mentions = [];
  for (const source of sources.values()) {
    for (const needle of [source.ref, source.marker]) {
      if (!needle) continue;
      for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
        mentions.push({ start: at, end: at + needle.length, source });
      }
    }
  }
  mentions.sort((a, b) => a.start - b.start || b.end - a.end);
  container.replaceChildren();
  let position = 0;
  for (const mention of mentions) {
    if (mention.start < position) continue; // inside a longer mention
    container.append(text.slice(position, mention.start));
    container.append(el("a", { class: "cite", href: `#${mention.source.id}`, "data-ref": mention.source.ref },
      text.slice(mention.start, mention.end)));
    position = mention.end;
  }
  container.append(text.slice(position));
}

// -- the run --------------------------------------------------------------------------

// messages: assistant message id -> its bubble; roles: message id -> the first role given;
// chunkId: the message a TEXT_MESSAGE_CHUNK without messageId continues (until another event).
const state = { messages: new Map(), roles: new Map(), chunkId: null, answers: 0 };

function setStatus(text) {
  document.getElementById("status").textContent = text;
}

function handleCitations(value) {
  if (!isObject(value) || value.version !== EVENT_VERSION) {
    console.warn("moca.citations: unknown version, ignored");
    return;
  }
  const message = state.messages.get(value.messageId);
  if (!message) {
    console.warn("moca.citations: no such assistant message, ignored", value.messageId);
    return;
  }
  if (message.cited || !Array.isArray(value.citations)) return;
  message.cited = true;
  const sources = new Map(); // node.ref -> the first entry for it
  value.citations.forEach((entry, index) => {
    const problem = isObject(entry) ? recordProblem(entry.record) : "not an object";
    if (problem) {
      console.warn(`moca.citations: skipped citations[${index}], invalid record (${problem})`);
      return;
    }
    const marker = isString(entry.marker) && entry.marker ? entry.marker : null;
    const ref = entry.record.node.ref;
    if (!sources.has(ref)) {
      sources.set(ref, { ref, marker, record: entry.record, id: `${message.id}-source-${sources.size + 1}` });
    }
  });
  const computedAt = isString(value.computedAt) && RFC3339.test(value.computedAt) ? value.computedAt : null;
  showSources(message, sources, computedAt);
  renderAnswer(message.textNode, message.text, sources);
}

function showSources(message, sources, computedAt) {
  const panel = document.getElementById("sources");
  panel.querySelector(".empty")?.remove();
  const section = el("section", { class: "answer-sources", "data-message-id": message.messageId },
    el("h3", {}, `Answer ${message.number}`));
  if (computedAt) section.append(el("p", { class: "computed-at" }, `Trust as of ${computedAt}`));
  if (sources.size === 0) {
    section.append(el("p", { class: "no-sources" }, "No sources from the loaded packages."));
  }
  for (const source of sources.values()) section.append(renderRecord(source.record, source.marker, source.id));
  panel.append(section);
}

// The assistant message `id`, added to the conversation the first time it is seen.
function assistantMessage(id) {
  let message = state.messages.get(id);
  if (!message) {
    state.answers += 1;
    const textNode = el("span", { class: "text" });
    const bubble = el("div", { class: "message assistant", "data-message-id": id },
      el("span", { class: "who" }, "Assistant"), textNode);
    document.getElementById("conversation").append(bubble);
    message = { messageId: id, id: `answer-${state.answers}`, number: state.answers, text: "", textNode, cited: false };
    state.messages.set(id, message);
  }
  return message;
}

function handleEvent(event) {
  if (event.type !== "TEXT_MESSAGE_CHUNK") state.chunkId = null; // any other event ends a chunk run
  switch (event.type) {
    case "TEXT_MESSAGE_START":
    case "TEXT_MESSAGE_CHUNK": {
      let id = event.messageId;
      if (event.type === "TEXT_MESSAGE_CHUNK") {
        id = id || state.chunkId; // a continuation chunk may leave messageId out
        state.chunkId = id;
      }
      if (!isString(id)) break;
      if (event.role && !state.roles.has(id)) state.roles.set(id, event.role);
      if ((state.roles.get(id) || "assistant") !== "assistant") break;
      const message = assistantMessage(id);
      if (isString(event.delta)) appendText(message, event.delta);
      break;
    }
    case "TEXT_MESSAGE_CONTENT": {
      const message = state.messages.get(event.messageId);
      if (message && isString(event.delta)) appendText(message, event.delta);
      break;
    }
    case "MESSAGES_SNAPSHOT":
      // A model that does not stream sends its answer's text only here.
      for (const m of Array.isArray(event.messages) ? event.messages : []) {
        if (isObject(m) && m.role === "assistant" && isString(m.id) && isString(m.content) &&
            m.content && !state.messages.has(m.id)) {
          appendText(assistantMessage(m.id), m.content);
        }
      }
      break;
    case "TOOL_CALL_START":
      setStatus(`The agent calls ${event.toolCallName}…`);
      break;
    case "CUSTOM":
      if (event.name === EVENT_NAME) handleCitations(event.value);
      break; // any other CUSTOM event: not ours, ignored
    case "RUN_FINISHED":
      setStatus("Done.");
      break;
    case "RUN_ERROR":
      setStatus(`The run failed: ${event.message}`);
      break;
    default:
      break;
  }
}

function appendText(message, delta) {
  message.text += delta;
  message.textNode.textContent = message.text;
}

async function ask(question) {
  const id = () => (crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2));
  document.getElementById("conversation").append(
    el("div", { class: "message user" }, el("span", { class: "who" }, "You"), question));
  setStatus("Asking…");
  const response = await fetch("/", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
    body: JSON.stringify({
      threadId: `thread-${id()}`, runId: `run-${id()}`, state: {}, tools: [], context: [],
      forwardedProps: {}, messages: [{ id: `user-${id()}`, role: "user", content: question }],
    }),
  });
  if (!response.ok || !response.body) {
    setStatus(`The service answered HTTP ${response.status}.`);
    return;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    buffer += decoder.decode(value || new Uint8Array(), { stream: !done });
    const frames = buffer.split(/\r?\n\r?\n/);
    buffer = done ? "" : frames.pop();
    for (const frame of frames) {
      const data = frame.split(/\r?\n/).filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, "")).join("\n");
      if (!data) continue;
      try {
        handleEvent(JSON.parse(data));
      } catch (error) {
        console.warn("skipped an event that is not JSON", error);
      }
    }
    if (done) break;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("ask");
  const input = document.getElementById("question");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const question = input.value.trim();
    if (question) ask(question).catch((error) => setStatus(`Failed: ${error}`));
  });
  for (const button of document.querySelectorAll("button.suggestion")) {
    button.addEventListener("click", () => {
      input.value = button.textContent;
      form.requestSubmit();
    });
  }
});
