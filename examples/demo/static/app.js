// The demo's chat page: streams an AG-UI run from POST / and shows each answer's sources
// right under it. The citation rules (which events count, valid records, trust badges, safe
// links, where the answer refers to its sources) are the npm package moca-agui's: the demo
// serves the package's own module file as /moca-agui.js. Every record field is put in the page
// as text (textContent); nothing remote is loaded.
import {
  LABEL_END, LABEL_LIMIT, MocaCitations, locateMarkers, safeUrl, shortText, sseEvents, trustBadges, withReadableDates,
} from "/moca-agui.js";

const citations = new MocaCitations();
const subscriber = citations.subscriber();

// What @ag-ui/client would hold: the run's messages ({ id, role, content }), in order.
/** @type {Array<{ id: string, role: string, content?: string }>} */
const messages = [];
// Each shown answer: message id -> { bubble, text node, sources section, number }.
const answers = new Map();
// The message a TEXT_MESSAGE_CHUNK without messageId continues, until an event that ends it.
let chunkId = null;
// The events that end a chunked message, as @ag-ui/client's transformChunks (RAW,
// ACTIVITY_*, SUBAGENT_* and unknown events leave it open); the table both are tested
// against is tests/core/chunk-cases.json.
const ENDS_CHUNKS = new Set([
  "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TOOL_CALL_START",
  "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_CHUNK", "TOOL_CALL_RESULT", "STATE_SNAPSHOT",
  "STATE_DELTA", "CUSTOM", "STEP_STARTED", "STEP_FINISHED", "THINKING_START", "THINKING_END",
  "THINKING_TEXT_MESSAGE_START", "THINKING_TEXT_MESSAGE_CONTENT", "THINKING_TEXT_MESSAGE_END",
  "REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT",
  "REASONING_MESSAGE_END", "REASONING_MESSAGE_CHUNK", "REASONING_END", "RUN_STARTED",
  "RUN_FINISHED", "RUN_ERROR", "MESSAGES_SNAPSHOT",
]);

// -- the DOM, text only ---------------------------------------------------------------------

function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
  for (const child of children) {
    if (child !== null && child !== undefined) {
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }
  return node;
}

// `text` with each ISO date in it readable, the ISO time on hover.
function dated(text) {
  return withReadableDates(text).map((part) => typeof part === "string"
    ? part
    : el("time", { datetime: part.iso, title: part.iso }, part.readable));
}

// An element showing `value` cut at a field's length, the whole value on hover (title).
function short(tag, attributes, value, limit, keepEnd) {
  const { text, whole } = shortText(value, limit, keepEnd);
  return el(tag, whole === null ? attributes : { ...attributes, title: whole }, text);
}

// The badges right under the title, every field before them cut short: no field's length can
// push a badge out of sight. The details, description and text follow, whole, wrapped.
function renderSource({ markers, record }, id) {
  const { node, package: pkg } = record;
  const badges = el("ul", { class: "badges" });
  const details = el("ul", { class: "trust-details" }); // what each badge means, as visible text
  for (const b of trustBadges(record)) {
    badges.append(short("li", { class: `badge ${b.tone}`, "data-badge": b.key }, b.label, LABEL_LIMIT, LABEL_END));
    details.append(el("li", { "data-detail": b.key }, ...dated(b.detail)));
  }
  const article = el("article", { class: "source", id, tabindex: "-1", "data-ref": node.ref },
    el("header", {},
      markers.length ? short("span", { class: "marker" }, markers.join(" ")) : null,
      short("h4", { class: "title" }, node.title || node.path)),
    badges,
    el("p", { class: "package" }, short("span", { class: "id" }, pkg.id), " ",
      short("span", { class: "version" }, `version ${pkg.version}`)),
    el("p", { class: "ref" }, short("code", {}, node.ref)),
    details);
  if (node.description) article.append(el("p", { class: "description" }, node.description));
  if (record.evidence?.length) {
    article.append(el("ul", { class: "evidence" }, ...record.evidence.map((e) => el("li", {}, ...evidence(e)))));
  }
  if (typeof record.text === "string") {
    article.append(el("details", {}, el("summary", {}, "Text"), el("pre", { class: "text" }, record.text)));
  }
  return article;
}

function evidence(entry) {
  const source = entry.source || {};
  const name = String(source.title || source.id || "source");
  const url = safeUrl(source.url) || safeUrl(source.resource);
  const state = entry.matched === true ? "matched" : entry.matched === false ? "not matched" : "not checked";
  const exact = entry.selector?.exact;
  return [
    url ? short("a", { href: url, rel: "noopener noreferrer nofollow" }, name) : short("span", { class: "source-name" }, name),
    exact ? " " : null, exact ? short("q", {}, exact) : null,
    " ", el("span", { class: `evidence-${state.replace(" ", "-")}` }, state),
    entry.note ? " " : null, entry.note ? short("span", { class: "note" }, entry.note) : null,
  ];
}

// The answer's text: each marker or cited ref a link to its source(s) below, its name and
// title listing each source it opens (a shared marker, `[1, 2]`, opens more than one); each
// ref the service left out marked as not a source.
function renderText(answer, text, cited) {
  const parts = [];
  let position = 0;
  for (const { start, end, citations: opened } of locateMarkers(text, cited?.citations ?? [])) {
    parts.push(text.slice(position, start));
    const mention = text.slice(start, end);
    if (opened.length) {
      const targets = opened.map((c) => answer.sourceIds.get(c.record.node.ref));
      const titles = opened.map((c) => shortText(c.record.node.title || c.record.node.path).text);
      const opens = `${opened.length === 1 ? "Source" : `${opened.length} sources`}: ${titles.join("; ")}`;
      parts.push(el("a", { class: "cite", href: `#${targets[0]}`, "aria-controls": targets.join(" "),
        "data-ref": opened[0].record.node.ref, "aria-label": `${mention}, ${opens}`, title: opens }, mention));
    } else {
      parts.push(el("span", { class: "not-a-source", title: "Not among the sources the Reader returned" },
        el("span", { class: "left-out" }, mention), " ", el("span", { class: "flag" }, "not a source")));
    }
    position = end;
  }
  parts.push(text.slice(position));
  answer.textNode.replaceChildren(...parts);
}

function renderSources(answer, cited) {
  answer.sourceIds = new Map(cited.citations.map((c, i) => [c.record.node.ref, `answer-${answer.number}-source-${i + 1}`]));
  const section = el("section", { class: "answer-sources", "data-message-id": answer.id,
    "aria-label": `Sources of answer ${answer.number}` }, el("h3", {}, `Sources of answer ${answer.number}`));
  if (cited.computedAt) {
    section.append(el("p", { class: "computed-at" }, "Trust as of ", ...dated(cited.computedAt),
      el("span", { class: "iso" }, cited.computedAt)));
  }
  if (!cited.citations.length) {
    section.append(el("p", { class: "no-sources" }, "No sources from the loaded packages."));
  }
  cited.citations.forEach((citation) => {
    section.append(renderSource(citation, answer.sourceIds.get(citation.record.node.ref)));
  });
  answer.sources.replaceChildren(section);
}

// -- the run --------------------------------------------------------------------------------

function setStatus(text) {
  document.getElementById("status").textContent = text;
}

// The bubble of assistant message `message`, made once it has text: a message without text
// (the empty start and end of a tool-only step) gets none.
function showAnswer(message) {
  let answer = answers.get(message.id);
  if (!answer && message.content) {
    const number = answers.size + 1;
    const textNode = el("span", { class: "text" });
    const bubble = el("div", { class: "message assistant", "data-message-id": message.id },
      el("span", { class: "who" }, `Answer ${number}`), textNode);
    const sources = el("div", { class: "sources-slot" });
    const turn = el("div", { class: "answer", id: `answer-${number}` }, bubble, sources);
    document.getElementById("conversation").append(turn);
    answer = { id: message.id, number, turn, textNode, sources, sourceIds: new Map() };
    answers.set(message.id, answer);
    turn.scrollIntoView({ block: "start" }); // the newest answer in view, with or without sources
  }
  if (answer) renderText(answer, message.content || "", citations.get(message.id));
  return answer;
}

citations.subscribe(() => {
  for (const [id, answer] of answers) {
    const cited = citations.get(id);
    if (cited && !answer.sources.firstChild) {
      renderSources(answer, cited);
      renderText(answer, messages.find((m) => m.id === id)?.content || "", cited);
      answer.turn.scrollIntoView({ block: "start" }); // the newest answer and its sources in view
    }
  }
});

function message(id, role) {
  let found = messages.find((m) => m.id === id);
  if (!found) {
    found = { id, role: role || "assistant", content: "" };
    messages.push(found);
  }
  return found;
}

function addText(id, role, delta) {
  const target = message(id, role);
  if (typeof delta === "string") target.content += delta;
  if (target.role === "assistant") showAnswer(target);
}

/** Take in one AG-UI event, as @ag-ui/client applies it. */
export function handleEvent(event) {
  if (ENDS_CHUNKS.has(event.type)) chunkId = null;
  switch (event.type) {
    case "TEXT_MESSAGE_START":
      addText(event.messageId, event.role, "");
      break;
    case "TEXT_MESSAGE_CONTENT":
      if (messages.some((m) => m.id === event.messageId)) addText(event.messageId, null, event.delta);
      break;
    case "TEXT_MESSAGE_CHUNK": {
      const id = event.messageId || chunkId; // a continuation chunk may leave messageId out
      chunkId = id;
      if (typeof id === "string") addText(id, event.role, event.delta);
      break;
    }
    case "MESSAGES_SNAPSHOT":
      for (const m of Array.isArray(event.messages) ? event.messages : []) {
        if (m && typeof m.id === "string") {
          Object.assign(message(m.id, m.role), m);
          if (m.role === "assistant") showAnswer(message(m.id));
        }
      }
      break;
    case "TOOL_CALL_START":
      setStatus(`The agent calls ${event.toolCallName}…`);
      break;
    case "CUSTOM": // moca.citations, for a message held; any other CUSTOM event is ignored
      subscriber.onCustomEvent({ event, messages });
      break;
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

async function ask(question) {
  const id = () => crypto.randomUUID();
  const user = { id: `user-${id()}`, role: "user", content: question };
  messages.push(user);
  document.getElementById("conversation").append(
    el("div", { class: "message user" }, el("span", { class: "who" }, "You"), question));
  setStatus("Asking…");
  const response = await fetch("/", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
    body: JSON.stringify({
      threadId: `thread-${id()}`, runId: `run-${id()}`, state: {}, tools: [], context: [],
      forwardedProps: {}, messages: [user],
    }),
  });
  if (!response.ok || !response.body) {
    setStatus(`The service answered HTTP ${response.status}.`);
    return;
  }
  // The package's reading of SSE: a frame that is not an AG-UI event (`data: null`) is skipped
  // with a warning, and so is an event the page cannot apply; the rest of the stream goes on.
  for await (const event of sseEvents(response.body)) {
    try {
      handleEvent(event);
    } catch (error) {
      console.warn(`moca-agui demo: skipped a ${String(event.type).slice(0, 100)} event it cannot apply`, error);
    }
  }
}

// A marker's link: show its source(s), right below the answer, without scrolling the answer
// away; the first one in view and focused.
document.addEventListener("click", (event) => {
  const link = event.target instanceof Element ? event.target.closest("a.cite") : null;
  const targets = (link?.getAttribute("aria-controls") || "").split(" ")
    .map((id) => document.getElementById(id)).filter(Boolean);
  if (!targets.length) return;
  event.preventDefault();
  for (const shown of document.querySelectorAll(".source.selected")) shown.classList.remove("selected");
  for (const target of targets) target.classList.add("selected");
  targets[0].scrollIntoView({ block: "nearest" });
  targets[0].focus({ preventScroll: true });
});

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
