// moca-agui: show the MOCA sources of an agent's answers, with their trust signals, in an
// AG-UI web UI. No dependencies and no build step: the same modules run in Node and in a
// browser (the marker styles are the modules of markers/).
//
// The rules are the client rules of MOCA citations over AG-UI 0.6.0 (section 4), the same as
// the Python package's moca_agui.client: an event of an unknown version, for a message the
// agent does not hold, or any other CUSTOM event is ignored; an invalid record is skipped with
// a warning; sources are keyed by record.node.ref; trust is shown as the Reader contract says
// (a declared verification is never a review); only http(s) URLs are links.

/** @typedef {import("./index.js").CitationRecord} CitationRecord */
/** @typedef {import("./index.js").Citation} Citation */
/** @typedef {import("./index.js").MessageCitations} MessageCitations */
/** @typedef {import("./index.js").CitationsValue} CitationsValue */
/** @typedef {import("./index.js").Badge} Badge */
/** @typedef {import("./index.js").Tone} Tone */
/** @typedef {import("./index.js").Mention} Mention */
/** @typedef {import("./index.js").HeldMessage} HeldMessage */
/** @typedef {import("./index.js").CitationsSubscriber} CitationsSubscriber */
/** @typedef {import("./index.js").MarkerItem} MarkerItem */
/** @typedef {import("./index.js").WrittenMarker} WrittenMarker */

import { MARKER_STYLES, namedNumbers, readItems, readMarker } from "./markers/index.js";

export { MARKER_STYLES, MAX_MARKER_LENGTH, MAX_RANGE, namedNumbers, readMarker } from "./markers/index.js";

export const EVENT_NAME = "moca.citations";
export const EVENT_VERSION = 1;
/** Review outcomes shown in the good tone (lower-cased): moca_agui.client.POSITIVE_OUTCOMES. */
export const POSITIVE_OUTCOMES = Object.freeze(["accurate", "approved", "correct"]);

// RFC 3339's date-time, ASCII digits only; isRfc3339 checks each field's range.
const RFC3339 = /^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?(?:[Zz]|[+-]([0-9]{2}):([0-9]{2}))$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;
const IRI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$/;

// -- records: citation-record.schema.json (v1), rule for rule as moca_agui.as_record ---------

/** @param {unknown} v @returns {v is Record<string, unknown>} */
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
/** @param {unknown} v @returns {v is string} */
const isString = (v) => typeof v === "string";
/** @param {unknown} v @returns {v is boolean} */
const isBool = (v) => typeof v === "boolean";
/** @param {unknown} v */
const isNumber = (v) => typeof v === "number" && Number.isFinite(v);
/** @param {unknown} v */
const isCount = (v) => Number.isInteger(v) && /** @type {number} */ (v) >= 0;
/** @param {unknown} v */
const isDigest = (v) => isString(v) && DIGEST.test(v);
/** @param {(v: unknown) => boolean} check @returns {(v: unknown) => boolean} */
const arrayOf = (check) => (v) => Array.isArray(v) && v.every(check);
const strings = arrayOf(isString);
/** @param {unknown} v */
/** One of `values`, exactly: a JSON Schema `enum` of strings (`["draft"]` is not "draft").
 * @param {string[]} values @returns {(v: unknown) => boolean} */
const oneOf = (values) => (v) => isString(v) && values.includes(v);
/** @param {unknown} v */
const byClaim = (v) => isObject(v) && isString(v.by) && (v.at === undefined || isString(v.at));

/**
 * The first problem of an object with `required` fields, `optional` ones and, when `closed`,
 * no others (each field checked by its function), or null.
 * @param {unknown} value @param {string} where
 * @param {Record<string, (v: unknown) => boolean>} required
 * @param {Record<string, (v: unknown) => boolean>} optional @param {boolean} closed
 * @returns {string | null}
 */
function shape(value, where, required, optional, closed) {
  if (!isObject(value)) return `${where}: not an object`;
  // Own members only: `in` also sees what every object inherits (`constructor`, ...).
  const has = Object.hasOwn;
  for (const [key, check] of Object.entries(required)) {
    if (!has(value, key)) return `${where}.${key}: missing`;
    if (!check(value[key])) return `${where}.${key}`;
  }
  for (const [key, check] of Object.entries(optional)) {
    if (has(value, key) && !check(value[key])) return `${where}.${key}`;
  }
  if (closed) {
    const extra = Object.keys(value).filter((key) => !has(required, key) && !has(optional, key));
    if (extra.length) return `${where}.${extra[0]}: not allowed`;
  }
  return null;
}

/** @param {unknown} v */
const isSpan = (v) => shape(v, "span", { start: isCount, end: isCount }, {}, true) === null;
const RECORD_FIELDS = {
  span: isSpan,
  text: isString,
  evidence: arrayOf((e) => shape(e, "evidence", { source: isObject },
    { selector: isObject, note: isString, matched: isBool }, false) === null),
  concepts: arrayOf((v) => isString(v) && IRI.test(v)),
  audience: isString,
  profiles: strings,
  score: isNumber,
  retrieval: (/** @type {unknown} */ v) => shape(v, "retrieval",
    { via: oneOf(["search", "requires", "parts", "narrower", "related"]) },
    { from: isString }, true) === null,
};
const PACKAGE_FIELDS = { id: isString, version: isString, digest: isDigest, signed: isBool };
const NODE_FIELDS = {
  id: isString, path: isString, type: isString,
  ref: (/** @type {unknown} */ v) => isString(v) && v.length > 0,
};
const NODE_OPTIONAL = {
  locale: isString, title: isString, description: isString, tags: strings, digest: isDigest,
};
const REVIEW = arrayOf((r) => shape(r, "review",
  { reviewer: isString, reviewedAt: isString, outcome: isString, signer: isString },
  { scope: isString }, false) === null);
const TRUST_FIELDS = {
  status: oneOf(["draft", "stable", "deprecated"]),
  declaredVerified: arrayOf(byClaim), attestedReviews: REVIEW,
  stale: isBool, inForce: isBool, superseded: isBool, contested: isBool,
};
const TRUST_OPTIONAL = {
  generated: (/** @type {unknown} */ v) => v === null || byClaim(v), staleAfter: isString,
  validFrom: isString, validUntil: isString, supersededBy: strings, contestedBy: strings,
};

/**
 * Why `record` is not a valid citation record (the first rule it breaks), or null if it is.
 * @param {unknown} record @returns {string | null}
 */
export function recordProblem(record) {
  const top = shape(record, "record", { package: isObject, node: isObject, trust: isObject },
    RECORD_FIELDS, true);
  if (top || !isObject(record)) return (top || "").replace(/^record\./, "");
  return shape(record.package, "package", PACKAGE_FIELDS, { signers: strings }, true) ||
    shape(record.node, "node", NODE_FIELDS, NODE_OPTIONAL, true) ||
    shape(record.trust, "trust", TRUST_FIELDS, TRUST_OPTIONAL, true);
}

// -- reading the event ----------------------------------------------------------------------

/**
 * The usable part of a `moca.citations` event's value: its message, time and valid entries
 * (one per `record.node.ref`, the first, with the markers of every entry of that ref), or
 * null to ignore the event (an unknown version, no usable messageId or citations list). Each
 * problem is a console warning.
 * @param {unknown} value @returns {CitationsValue | null}
 */
export function readCitations(value) {
  if (!isObject(value) || value.version !== EVENT_VERSION) {
    warn(`ignored an event of version ${shown(isObject(value) ? value.version : value)}`);
    return null;
  }
  const { messageId, computedAt } = value;
  if (!isString(messageId) || !messageId || !Array.isArray(value.citations)) {
    warn("ignored an event without a messageId and a citations list");
    return null;
  }
  /** @type {Map<string, Citation & { markers: string[] }>} */
  const byRef = new Map();
  value.citations.forEach((entry, index) => {
    const problem = isObject(entry) ? recordProblem(entry.record) : "not an object";
    if (problem || !isObject(entry)) {
      warn(`skipped citations[${index}], invalid record (${problem})`);
      return;
    }
    const record = /** @type {CitationRecord} */ (entry.record);
    const marker = isString(entry.marker) && entry.marker ? entry.marker : null;
    const kept = byRef.get(record.node.ref);
    if (!kept) byRef.set(record.node.ref, { marker, markers: marker ? [marker] : [], record });
    // Another span of a node already kept: its marker points to that same source.
    else if (marker && !kept.markers.includes(marker)) kept.markers.push(marker);
  });
  const time = isRfc3339(computedAt) ? computedAt : null;
  if (computedAt !== undefined && time === null) warn("computedAt is not an RFC 3339 date-time");
  return { messageId, computedAt: time, citations: [...byRef.values()] };
}

/**
 * Whether `value` is an RFC 3339 date-time with an offset, each field in its range (a leap
 * second too): moca_agui.client's rule.
 * @param {unknown} value @returns {value is string}
 */
export function isRfc3339(value) {
  const match = isString(value) ? RFC3339.exec(value) : null;
  if (!match) return false;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] =
    match.slice(1).map((part) => Number(part ?? 0));
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day >= 1 && day <= days && hour < 24 && minute < 60 &&
    second < 61 && offsetHours < 24 && offsetMinutes < 60;
}

/** @param {string} message */
function warn(message) {
  console.warn(`moca-agui: ${message}`);
}

/** `value` as JSON for a warning, cut at 200 characters (an id can be any size). */
function shown(/** @type {unknown} */ value) {
  let json;
  try {
    json = JSON.stringify(value) ?? String(value);
  } catch {
    json = String(value);
  }
  return json.length > 200 ? `${json.slice(0, 200)}…` : json;
}

// -- the stream -----------------------------------------------------------------------------

/**
 * The AG-UI events of an SSE body, in order: each frame's `data:` lines joined, read as
 * JSON. A frame that is not a JSON object with a string `type` (`data: null`, a cut line) is
 * skipped with a console warning, and the stream goes on. Linear in the stream: each chunk is
 * scanned once, however long an event is. A frame the stream ends in the middle of is read.
 * @param {ReadableStream<Uint8Array>} body @returns {AsyncGenerator<Record<string, unknown>>}
 */
export async function* sseEvents(body) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending = ""; // the start of a line whose end has not arrived
  let afterCR = false; // the last chunk ended in "\r": a "\n" next ends no other line
  /** @type {string[]} */
  let data = [];
  let frame = 0;
  const event = () => {
    const text = data.join("\n");
    data = [];
    frame += 1;
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      warn(`skipped frame ${frame - 1}: not JSON: ${shown(text)}`);
      return null;
    }
    if (!isObject(parsed) || !isString(parsed.type)) {
      warn(`skipped frame ${frame - 1}: not an AG-UI event: ${shown(parsed)}`);
      return null;
    }
    return parsed;
  };
  /** @param {string} line */
  const take = (line) => {
    if (line === "") return data.length ? event() : null;
    if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    return null; // a comment, event:, id: or retry: line
  };
  let finished = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      let text = decoder.decode(value ?? new Uint8Array(), { stream: !done });
      if (afterCR && text) {
        if (text.startsWith("\n")) text = text.slice(1);
        afterCR = false;
      }
      let start = 0;
      for (const end of text.matchAll(/\r\n|\r|\n/g)) {
        const line = pending + text.slice(start, end.index);
        pending = "";
        start = (end.index ?? 0) + end[0].length;
        const parsed = take(line);
        if (parsed) yield parsed;
      }
      if (text.endsWith("\r")) afterCR = true;
      pending += text.slice(start);
      if (done) break;
    }
    finished = true;
  } finally {
    if (!finished) await reader.cancel().catch(() => {}); // the reader stopped early
  }
  if (pending) take(pending);
  const last = data.length ? event() : null;
  if (last) yield last;
}

/**
 * A fetch for `new HttpAgent({ url, fetch: skipBadFrames() })`: its SSE answers hold only
 * AG-UI events, each frame that is not one skipped with a console warning (`sseEvents`), where
 * @ag-ui/client would end the whole run on it. Other answers pass unchanged.
 * @param {typeof fetch} [fetchFunction] default: the global fetch
 * @returns {(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>}
 */
export function skipBadFrames(fetchFunction) {
  return async (input, init) => {
    const response = await (fetchFunction ?? globalThis.fetch)(input, init);
    const type = response.headers.get("content-type") ?? "";
    if (!response.body || !type.toLowerCase().startsWith("text/event-stream")) return response;
    const events = sseEvents(response.body);
    const encoder = new TextEncoder();
    const body = new ReadableStream({
      async pull(controller) {
        const { value, done } = await events.next();
        if (done) controller.close();
        else controller.enqueue(encoder.encode(`data: ${JSON.stringify(value)}\n\n`));
      },
      async cancel() {
        await events.return(undefined);
      },
    });
    const { status, statusText, headers } = response;
    return new Response(body, { status, statusText, headers });
  };
}

// -- the store ------------------------------------------------------------------------------

/** The key of an assistant message's `metadata` that carries its event's value (AG-UI 1.0). */
export const METADATA_KEY = "moca.citations";

/**
 * The citations of each assistant message, by message id, outside the message objects: from
 * `moca.citations` events, and from the same value on a message's `metadata` (a snapshot's
 * messages, or messages an app restores with `setMessages`).
 */
export class MocaCitations {
  /** @type {Map<string, MessageCitations>} */
  #byMessage = new Map();
  /** @type {Map<string, string>} the JSON of each message's value: the same value is taken once */
  #values = new Map();
  /** @type {Map<string, string>} the text each cited message had when its citations came */
  #texts = new Map();
  /** @type {Set<() => void>} */
  #listeners = new Set();

  /**
   * The citations of message `messageId`, or undefined before its event.
   * @param {string} messageId @returns {MessageCitations | undefined}
   */
  get(messageId) {
    return this.#byMessage.get(messageId);
  }

  /**
   * Call `listener` after each change; returns the function that stops it.
   * @param {() => void} listener @returns {() => void}
   */
  subscribe(listener) {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /**
   * An AG-UI AgentSubscriber for `agent.subscribe(...)` or `agent.runAgent(params, ...)`:
   * it keeps each `moca.citations` event for an assistant message the agent holds, and the
   * citations the agent's messages carry on their metadata.
   * @returns {CitationsSubscriber}
   */
  subscriber() {
    return {
      onCustomEvent: ({ event, messages }) => {
        if (event.name === EVENT_NAME) this.#accept(event.value, messages);
      },
      onMessagesSnapshotEvent: ({ event }) => this.fromMessages(event.messages),
    };
  }

  /**
   * Keep the citations `messages` carry on their metadata (`metadata["moca.citations"]`, the
   * value of the message's event): for messages restored from a history that keeps messages,
   * not events. An answer whose id changed (the same text, a new id, its old id gone) keeps
   * its citations under the new id.
   * @param {ReadonlyArray<HeldMessage>} messages
   */
  fromMessages(messages) {
    for (const message of messages) {
      const carried = isObject(message.metadata) ? message.metadata[METADATA_KEY] : undefined;
      if (carried === undefined || message.role !== "assistant") continue;
      if (!isObject(carried) || carried.messageId !== message.id) {
        warn(`ignored the citations on the metadata of ${shown(message.id)}: not its own`);
        continue;
      }
      this.#accept(carried, messages);
    }
    this.#followRenames(messages);
  }

  /** @param {ReadonlyArray<HeldMessage>} messages */
  #followRenames(messages) {
    const held = new Set(messages.map((m) => m.id));
    /** @type {Map<string, string[]>} */
    const gone = new Map();
    for (const [id, text] of this.#texts) {
      if (!held.has(id)) gone.set(text, [...(gone.get(text) ?? []), id]);
    }
    if (gone.size === 0) return;
    /** @type {Map<string, string[]>} */
    const named = new Map();
    for (const m of messages) {
      if (m.role !== "assistant" || !isString(m.content) || this.#byMessage.has(m.id)) continue;
      const text = m.content.trim();
      if (gone.has(text)) named.set(text, [...(named.get(text) ?? []), m.id]);
    }
    let changed = false;
    for (const [text, ids] of named) {
      const old = gone.get(text) ?? [];
      if (ids.length !== 1 || old.length !== 1) continue;  // two answers of one text: neither
      this.#keep(ids[0], /** @type {MessageCitations} */ (this.#byMessage.get(old[0])),
        /** @type {string} */ (this.#values.get(old[0])), text);
      this.#byMessage.delete(old[0]);
      this.#values.delete(old[0]);
      changed = true;
    }
    // An answer the client no longer holds is never matched again (a later answer of the
    // same text is another answer).
    for (const ids of gone.values()) for (const id of ids) this.#texts.delete(id);
    if (changed) for (const listener of [...this.#listeners]) listener();
  }

  /** @param {unknown} value @param {ReadonlyArray<HeldMessage>} messages */
  #accept(value, messages) {
    const read = readCitations(value);
    if (read === null) return;
    const { messageId, computedAt, citations } = read;
    const message = messages.find((m) => m.id === messageId);
    if (!message || message.role !== "assistant" || !isString(message.content)) {
      warn(`ignored the citations of ${shown(messageId)}: no such assistant message`);
      return;
    }
    const json = JSON.stringify(value);
    if (this.#byMessage.has(messageId)) {
      // The same value again (its metadata copy, an event replayed on reconnect): taken once.
      if (this.#values.get(messageId) !== json) {
        warn(`ignored a second event for message ${shown(messageId)}`);
      }
      return;
    }
    this.#keep(messageId, Object.freeze({ computedAt, citations }), json, message.content.trim());
    for (const listener of [...this.#listeners]) listener();
  }

  /** @param {string} messageId @param {MessageCitations} kept @param {string} json
   *  @param {string} text */
  #keep(messageId, kept, json, text) {
    this.#byMessage.set(messageId, kept);
    this.#values.set(messageId, json);
    this.#texts.set(messageId, text);
  }
}

// -- trust ----------------------------------------------------------------------------------

/** @param {string} key @param {string} label @param {Tone} tone @param {string} detail
 *  @returns {Badge} */
const badge = (key, label, tone, detail) => ({ key, label, tone, detail });

/**
 * The trust badges of a valid citation record, most serious first: moca_agui.client's
 * trust_badges, rule for rule. `declaredVerified` is the author's own claim and never a
 * review; each `attestedReviews` entry is one, good only for a positive outcome.
 * @param {CitationRecord} record @returns {Badge[]}
 */
export function trustBadges(record) {
  const { trust, package: pkg } = record;
  /** @type {Badge[]} */
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
    const tone = POSITIVE_OUTCOMES.includes(review.outcome.toLowerCase()) ? "good" : "warning";
    badges.push(badge("attested-review", `Reviewed: ${review.outcome} (signed)`, tone, detail));
  }
  for (const claim of trust.declaredVerified) {
    const at = claim.at ? ` on ${claim.at}` : "";
    badges.push(badge("declared-verification", "Verified, as declared", "info",
      `The author says ${claim.by} verified it${at}. Not signed, not checked.`));
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
  /** @param {boolean | null} state */
  const count = (state) => states.filter((s) => s === state).length;
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

/**
 * `value` if it is an absolute http(s) URL safe to link to, else null. One rule with
 * moca_agui.client.safe_url (the shared case table holds both to it): no spaces, control
 * characters (DEL too), quotes, backslashes or angle brackets anywhere; `http://` or
 * `https://` and a host; the WHATWG URL parser's reading of it (valid percent-encoding, no
 * forbidden code point, a valid IPv4 address, no empty `xn--` label, a port 0 to 65535); no
 * bidirectional control or invisible character in the authority, which would make the link
 * read as another; and an internationalised host (raw or `xn--`) of letters, marks and digits,
 * written as it is meant (no full-width letters, no label starting with a combining mark or
 * mixing right-to-left with left-to-right letters or digits).
 * @param {unknown} value @returns {string | null}
 */
export function safeUrl(value) {
  if (!isString(value) || /[\u0000-\u0020\\"'<>`\u007f]/.test(value)) return null;
  // "//" and a host right after the scheme: the URL parser reads "https:/x" and "https:///x"
  // as https://x/, where moca_agui (and RFC 3986) see no host at all.
  const authority = /^https?:\/\/([^/?#]+)/i.exec(value)?.[1];
  if (authority === undefined || INVISIBLE.test(authority)) return null;
  let url;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (!url.hostname) return null;
  const host = authority.slice(authority.lastIndexOf("@") + 1);
  if (host.startsWith("[")) return value;
  let decoded;
  try {
    decoded = decodeURIComponent(host.split(":")[0]);
  } catch {
    return null;
  }
  const mapped = decoded.toLowerCase();
  if (![...mapped].every(idnChar)) return null;
  // An internationalised host written as it is meant (full-width letters, "\u2488" or an
  // ideographic full stop are refused, and so are mixed directions), as moca_agui.client has it.
  if (/[^\u0000-\u007f]/.test(mapped) && !plainIdn(mapped)) return null;
  // The URL parser keeps an `xn--` label that decodes to a symbol (a snowman); a letter,
  // mark or digit is what moca_agui.client takes too.
  for (const label of url.hostname.split(".")) {
    if (!label.startsWith("xn--")) continue;
    const unicode = punycodeDecode(label.slice(4));
    if (!unicode || !/[^\u0000-\u007f]/.test(unicode) || ![...unicode].every(idnChar) ||
      !plainIdn(unicode)) return null;
  }
  return value;
}

/**
 * Whether an internationalised host (or label) is written as it is meant: nothing a
 * compatibility or case mapping would change, no label starting with a combining mark, and
 * no label mixing right-to-left characters with left-to-right letters or digits, or not
 * starting with a letter and ending in a letter, mark or digit (the IDNA bidi rule,
 * simplified). moca_agui.client._plain_idn.
 * @param {string} host
 */
function plainIdn(host) {
  if (host.normalize("NFKC").toLowerCase() !== host) return false;
  return host.split(".").every((label) => !/^\p{M}/u.test(label) && (!RTL.test(label) || (
    ![...label].some((c) => !RTL.test(c) && /[\p{L}\p{N}]/u.test(c)) &&
    /^\p{L}/u.test(label) && /[\p{L}\p{M}\p{N}]$/u.test(label))));
}

/** ASCII (the URL parser refuses the forbidden code points), or a letter, mark or digit.
 * @param {string} c */
const idnChar = (c) => c < "\u0080" || IDN_CHAR.test(c);

/**
 * The Unicode text of a Punycode label (RFC 3492, without its `xn--`), or null.
 * @param {string} input @returns {string | null}
 */
function punycodeDecode(input) {
  const base = 36, tMin = 1, tMax = 26;
  const basic = Math.max(input.lastIndexOf("-"), 0);
  /** @type {number[]} */
  const output = [];
  for (let j = 0; j < basic; j += 1) {
    if (input.charCodeAt(j) >= 0x80) return null;
    output.push(input.charCodeAt(j));
  }
  let n = 128, bias = 72, i = 0;
  for (let at = basic > 0 ? basic + 1 : 0; at < input.length;) {
    const old = i;
    for (let w = 1, k = base; ; k += base) {
      if (at >= input.length) return null;
      const c = input.charCodeAt(at++);
      const digit = c >= 48 && c <= 57 ? c - 22 : c >= 65 && c <= 90 ? c - 65
        : c >= 97 && c <= 122 ? c - 97 : base;
      if (digit >= base) return null;
      i += digit * w;
      const t = k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias;
      if (digit < t) break;
      w *= base - t;
      if (i > 0x10ffff * 64 || w > 0x10ffff * 64) return null;
    }
    const length = output.length + 1;
    let delta = old === 0 ? Math.floor((i - old) / 700) : Math.floor((i - old) / 2);
    delta += Math.floor(delta / length);
    let k = 0;
    for (; delta > ((base - tMin) * tMax) >> 1; k += base) delta = Math.floor(delta / (base - tMin));
    bias = k + Math.floor(((base - tMin + 1) * delta) / (delta + 38));
    n += Math.floor(i / length);
    i %= length;
    if (n > 0x10ffff) return null;
    output.splice(i, 0, n);
    i += 1;
  }
  return String.fromCodePoint(...output);
}

// Characters that draw nothing or reorder text: the categories Cf, Cc, Co, Cn and Z, and the
// default-ignorable code points of other categories (Hangul fillers, variation selectors).
const INVISIBLE = new RegExp("[\\p{Cf}\\p{Cc}\\p{Co}\\p{Cn}\\p{Z}\\u034f\\u115f\\u1160\\u17b4" +
  "\\u17b5\\u180b-\\u180d\\u180f\\u3164\\uffa0\\ufe00-\\ufe0f\\u{e0000}-\\u{e0fff}]", "u");
const IDN_CHAR = /^[\p{L}\p{M}\p{N}]$/u;
// The right-to-left blocks (Hebrew, Arabic, Syriac, Thaana, N'Ko...): moca_agui.client._rtl.
const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;

// -- where the answer refers to its sources -------------------------------------------------

// A ref stands between delimiters, as moca_agui finds it: a run of non-delimiters, trimmed of
// trailing punctuation and edge markup until it is a cited ref. A ref-like token holds a
// scheme's ":", then "@" and "#".
const TOKEN = /[^\s<>()[\]{}"'`|]+/gu;
const TRAILING = /[\p{P}*_~]$/u;
const REF_LIKE = /^[A-Za-z][A-Za-z0-9+.-]*:[^@#]*@[^#]*#./;

/**
 * The markers written in the answer `text` in any style of MARKER_STYLES (`[1]`, `[1, 2]`,
 * `[1-3]`, `[^1]`, `【1†source】`), where CommonMark shows them as text, in text order, none
 * inside another: none in code (`xs[2]` in code is an index), a link (`[1](https://...)`,
 * `[1][docs]`, `[1]` with a definition `[1]: https://...`, a link's text), an autolink or an
 * HTML comment; the service reads the same. Each with the numbers and ranges it names as
 * written (`namedNumbers` says which numbers those are).
 * @param {string} text @returns {WrittenMarker[]}
 */
export function findWrittenMarkers(text) {
  return readAnswer(text).written;
}

/**
 * The markers written in `text` (findWrittenMarkers), and whether a text `marker` at
 * `start` is shown as text, not code, a link or a comment.
 * @param {string} text
 * @returns {{ written: WrittenMarker[], shows: (start: number, marker: string) => boolean }}
 */
function readAnswer(text) {
  const candidates = markerTexts(text);
  const { hidden, labels } = hiddenRanges(text);
  const autolinks = text.includes("<")
    ? [...text.matchAll(AUTOLINK)].map(
        (m) => /** @type {[number, number]} */ ([m.index ?? 0, (m.index ?? 0) + m[0].length]),
      )
    : [];
  const linkTexts = text.includes("](") ? linkTextRuns(text, labels, candidates) : [];
  const comments = text.includes("<!--") ? htmlComments(text) : [];
  /** @param {number} start @param {string} marker */
  const shows = (start, marker) => {
    if ([hidden, autolinks, linkTexts, comments].some((not) => inCode(start, not))) return false;
    const end = start + marker.length;
    return !(marker.startsWith("[") && marker.endsWith("]") && isLink(text, end, marker, labels));
  };
  /** @type {WrittenMarker[]} */
  const written = [];
  /** @type {Map<string, ReturnType<typeof readItems>>} */
  const reads = new Map(); // an answer writes the same markers again and again
  let after = 0; // the end of the last marker found: none is inside it
  for (const { start, end } of candidates) {
    if (start < after) continue;
    const marker = text.slice(start, end);
    let read = reads.get(marker);
    if (read === undefined) reads.set(marker, (read = readItems(marker)));
    if (read && shows(start, marker)) {
      written.push({ start, end, text: marker, ...read });
      after = end;
    }
  }
  return { written, shows };
}

/**
 * Where a style's pattern matches `text`, each once, in order (at one start, the longest
 * first; one may hold another, `【see [1]】`): what may be a marker.
 * @param {string} text @returns {Array<{ start: number, end: number }>}
 */
function markerTexts(text) {
  // each style's matches, in order: merged, not sorted (an answer can hold 100,000 markers)
  const styles = MARKER_STYLES.filter((style) => text.includes(style.opener)).map((style) => {
    const matches = text.matchAll(style.pattern);
    return { matches, next: matches.next().value };
  });
  /** @type {Array<{ start: number, end: number }>} */
  const candidates = [];
  for (;;) {
    let first = styles[0];
    for (const style of styles) if (goesBefore(style.next, first.next)) first = style;
    const match = first?.next;
    if (!match) return candidates;
    first.next = first.matches.next().value;
    const start = match.index ?? 0;
    const end = start + match[0].length;
    const last = candidates[candidates.length - 1];
    if (!last || last.start !== start || last.end !== end) candidates.push({ start, end });
  }
}

/** Whether match `a` goes before `b` (none: after all): it starts earlier, or at the same
 * place and is longer. @param {RegExpMatchArray | undefined} a
 * @param {RegExpMatchArray | undefined} b */
function goesBefore(a, b) {
  if (!a || !b) return Boolean(a);
  const [at, other] = [a.index ?? 0, b.index ?? 0];
  return at < other || (at === other && a[0].length > b[0].length);
}

/**
 * Where the answer `text` refers to its sources, as offsets (`text.slice(start, end)`), in
 * text order, none inside another: each marker written in it (findWrittenMarkers) that opens
 * a citation, each other marker text a citation has where CommonMark shows it as text, each
 * ref of a citation standing between delimiters, and each ref-like token (`<package id>@
 * <version>#<path>`) that no citation has, with `citation` null and `citations` empty: a
 * reference the service left out, which is not a source.
 *
 * A marker text T opens (`citations`): the citations whose marker is T, and each citation
 * whose marker is a single-number marker of any style (`[n]`, `[^n]`, `【n】`, `【n†…】`) for a
 * number n that T names (a range in T counts when both its ends are such numbers or T is a
 * citation's marker, and it holds at most MAX_RANGE numbers); in the order T names their
 * numbers, the others in the event's order. `citation` is the first.
 * @param {string} text @param {ReadonlyArray<Citation>} citations @returns {Mention[]}
 */
export function locateMarkers(text, citations) {
  /** @type {Map<string, Citation>} */
  const byRef = new Map();
  /** @type {Map<string, Citation[]>} */
  const byMarker = new Map();
  /** @type {Map<number, Citation[]>} */
  const byNumber = new Map();
  for (const citation of citations) {
    if (!byRef.has(citation.record.node.ref)) byRef.set(citation.record.node.ref, citation);
    for (const marker of citation.markers ?? (citation.marker ? [citation.marker] : [])) {
      if (!marker) continue; // no text to find
      add(byMarker, marker, citation);
      const items = readMarker(marker)?.items ?? [];
      if (items.length === 1 && typeof items[0] === "number") add(byNumber, items[0], citation);
    }
  }
  /** @type {Mention[]} */
  const found = [];
  if (byMarker.size) {
    const { written, shows } = readAnswer(text);
    /** @type {Map<string, Citation[]>} */
    const opening = new Map(); // what each marker text opens, read once
    for (const { start, end, text: marker, items } of written) {
      let opened = opening.get(marker);
      if (!opened) opening.set(marker, (opened = opens(byMarker.get(marker) ?? [], items, byNumber)));
      if (opened.length) found.push({ start, end, citation: opened[0], citations: opened });
    }
    for (const [marker, opened] of byMarker) {
      if (readMarker(marker)) continue; // a style's marker: found where written
      for (let at = text.indexOf(marker); at !== -1; at = text.indexOf(marker, at + 1)) {
        if (shows(at, marker)) {
          found.push({ start: at, end: at + marker.length, citation: opened[0], citations: opened });
        }
      }
    }
  }
  for (const match of text.matchAll(TOKEN)) {
    let start = match.index ?? 0;
    let token = match[0];
    while (token && !byRef.has(token) && TRAILING.test(token)) token = token.slice(0, -1);
    while (token && !byRef.has(token) && "*_~".includes(token[0])) {
      token = token.slice(1);
      start += 1;
    }
    const citation = byRef.get(token) ?? null;
    if (citation || REF_LIKE.test(token)) {
      found.push({ start, end: start + token.length, citation, citations: citation ? [citation] : [] });
    }
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  /** @type {Mention[]} */
  const mentions = [];
  for (const mention of found) {
    const last = mentions[mentions.length - 1];
    if (last && mention.start < last.end) continue; // inside one already taken
    mentions.push(mention);
  }
  return mentions;
}

/**
 * The citations a written marker opens: `shared` (those whose marker is its text) and, for
 * each number its `items` name, the citations of that single number (`byNumber`); in the
 * order of its numbers, each of `shared` no number gives in the first place no number fills.
 * @param {Citation[]} shared @param {ReadonlyArray<MarkerItem>} items
 * @param {Map<number, Citation[]>} byNumber @returns {Citation[]}
 */
function opens(shared, items, byNumber) {
  const numbers = namedNumbers(items, shared.length ? () => true : (n) => byNumber.has(n));
  const slots = numbers.map((n) => byNumber.get(n) ?? null);
  const numbered = new Set(slots.flatMap((slot) => slot ?? []));
  const rest = shared.filter((citation) => !numbered.has(citation));
  /** @type {Set<Citation>} */
  const opened = new Set();
  let next = 0; // the first of `rest` not taken
  for (const slot of slots) {
    if (slot) for (const citation of slot) opened.add(citation);
    else if (next < rest.length) opened.add(rest[next++]);
  }
  for (const citation of rest.slice(next)) opened.add(citation);
  return [...opened];
}

/** @template K @param {Map<K, Citation[]>} map @param {K} key @param {Citation} citation */
function add(map, key, citation) {
  const held = map.get(key);
  if (!held) map.set(key, [citation]);
  else if (held[held.length - 1] !== citation) held.push(citation); // one citation's markers
}

// -- what CommonMark does not show as text (moca_agui.records.code) ---------------------

const LIST_MARKER = /[-+*]|[0-9]{1,9}[.)]/y;
const THEMATIC_BREAK = /(?:([-*_])[ \t]*)(?:\1[ \t]*){2,}$/y;
const SETEXT = /(?:=+|-+)[ \t]*$/y;
const ATX = /#{1,6}(?:[ \t]|$)/y;
const DEFINITION = new RegExp(
  String.raw`\[((?:[^\[\]\\]|\\.){1,999})\]:` +
    String.raw`(?:[ \t]*|[ \t]*(?:<[^<>\n]*>|[^\s<][^\s]*)` +
    String.raw`(?:[ \t]+(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\)))?[ \t]*)$`,
  "y",
);
const QUOTE = -1; // a block quote among the open containers
const MAX_DEPTH = 32; // how deep containers nest at most: each line is matched against each

/** Whether `pattern` (sticky) matches `line` at `pos`. @param {RegExp} pattern */
function matchesAt(pattern, /** @type {string} */ line, /** @type {number} */ pos) {
  pattern.lastIndex = pos;
  return pattern.exec(line);
}

/** A link label as CommonMark matches it: case folded, inner white space collapsed.
 * @param {string} label */
function normalLabel(label) {
  return label.trim().split(/\s+/).join(" ").toLowerCase();
}

/**
 * The ranges of `text` that CommonMark shows as code or not at all: fenced code blocks
 * (backticks or tildes, three or more, closed by a fence of the same character at least as
 * long, else running to the end of the answer or of their container), indented code blocks,
 * code spans of any backtick count (a run none of its length closes in its paragraph is
 * text) and link reference definitions, in order; and the labels those define. List items
 * and block quotes nest as CommonMark says. One pass, linear in the text; the same reading
 * as moca_agui's.
 * @param {string} text @returns {{ hidden: Array<[number, number]>, labels: Set<string> }}
 */
function hiddenRanges(text) {
  /** @type {Array<[number, number]>} */
  const hidden = [];
  /** @type {Set<string>} */
  const labels = new Set();
  // What code or a definition needs; without it nothing is hidden (a line nested too deep
  // is no code).
  if (!["`", "~", "\t", "    ", "]:"].some((sign) => text.includes(sign))) return { hidden, labels };
  /** @type {number[]} */
  const containers = []; // a list item's content indentation (past its container's), or QUOTE
  /** @type {{ char: string, length: number, depth: number } | null} */
  let fence = null;
  let paragraph = false;
  // The innermost container is a list item begun on a line of its own, still empty: a blank
  // line ends it (an item begins with at most one blank line).
  let emptyItem = false;
  /** @type {Run[]} */
  let runs = []; // the current paragraph's backtick runs

  const endParagraph = () => {
    paragraph = false;
    spans(runs, hidden);
    runs = [];
  };
  /** @param {number} start @param {string} line */
  const hide = (start, line) => {
    endParagraph();
    hidden.push([start, start + line.length]);
  };

  /** @param {string} line @param {number} start @returns {number | null} */
  const classify = (line, start) => {
    let [depth, pos, column, base] = matchContainers(line, containers);
    [pos, column] = skipSpace(line, pos, column);
    if (fence) {
      if (depth >= fence.depth) {
        if (column - base <= 3 && closes(line, pos, fence.char, fence.length)) fence = null;
        hide(start, line);
        return null;
      }
      fence = null; // its container ended, and the fence with it
    }
    const endsItem = emptyItem;
    emptyItem = false;
    if (pos === line.length) {
      endParagraph();
      containers.length = Math.min(depth, containers.length - (endsItem ? 1 : 0));
      return null;
    }
    if (paragraph && depth < containers.length) {
      if (column - base >= 4 || !startsBlock(line, pos)) return pos; // a lazy continuation
      endParagraph();
    }
    containers.length = depth;
    for (;;) {
      if (column - base >= 4) {
        if (paragraph) return pos;
        hide(start, line); // an indented code block
        return null;
      }
      const char = line[pos];
      if (containers.length === MAX_DEPTH && (char === ">" || listItem(line, pos, 0))) {
        hide(start, line); // too deep to follow in linear time: not text
        return null;
      }
      if (char === ">") {
        endParagraph();
        containers.push(QUOTE);
        [pos, base] = afterQuote(line, pos, column);
        [pos, column] = skipSpace(line, pos, base);
        if (pos === line.length) return null;
        continue;
      }
      if (char === "`" || char === "~") {
        const length = runLength(line, pos, char);
        if (length >= 3 && (char === "~" || !line.includes("`", pos + length))) {
          endParagraph();
          fence = { char, length, depth: containers.length };
          hide(start, line);
          return null;
        }
      }
      if ((paragraph && matchesAt(SETEXT, line, pos)) || matchesAt(THEMATIC_BREAK, line, pos)) {
        endParagraph();
        return null;
      }
      const item = listItem(line, pos, column);
      if (item && !(paragraph && !item.mayInterrupt)) {
        endParagraph();
        containers.push(item.contentColumn - base);
        if (item.content === null) {
          emptyItem = true;
          return null; // an empty item so far
        }
        pos = item.content;
        column = base = item.contentColumn;
        if (item.indentedCode) {
          hide(start, line);
          return null;
        }
        continue;
      }
      if (matchesAt(ATX, line, pos)) {
        endParagraph();
        runs = backtickRuns(line.slice(pos), start + pos);
        endParagraph();
        return null;
      }
      const definition = paragraph ? null : matchesAt(DEFINITION, line, pos);
      if (definition) {
        labels.add(normalLabel(definition[1]));
        hide(start, line);
        return null;
      }
      paragraph = true;
      return pos;
    }
  };

  let at = 0;
  for (const whole of text.split("\n")) {
    const line = whole.replace(/\r+$/, "");
    const found = classify(line, at);
    if (found !== null) for (const run of backtickRuns(line.slice(found), at + found)) runs.push(run);
    at += whole.length + 1;
  }
  endParagraph();
  hidden.sort((a, b) => a[0] - b[0]);
  return { hidden, labels };
}

/** @typedef {{ start: number, end: number, opens: number }} Run */

/** The backtick runs of `text` (at offset `start`); a backslash before one makes its first
 * backtick text. @param {string} text @param {number} start @returns {Run[]} */
function backtickRuns(text, start) {
  /** @type {Run[]} */
  const found = [];
  for (const match of text.matchAll(/`+/g)) {
    const at = match.index ?? 0;
    let slashes = 0;
    while (at - slashes > 0 && text[at - slashes - 1] === "\\") slashes += 1;
    const length = match[0].length;
    found.push({ start: start + at, end: start + at + length, opens: length - (slashes % 2) });
  }
  return found;
}

/** A paragraph's code spans, into `hidden`: from a run to the next run as long as it opens;
 * a run none closes is text. @param {Run[]} runs @param {Array<[number, number]>} hidden */
function spans(runs, hidden) {
  /** @type {Array<number | undefined>} */
  const closing = new Array(runs.length); // the next run as long as this one opens
  /** @type {Map<number, number>} */
  const last = new Map();
  for (let at = runs.length - 1; at >= 0; at -= 1) {
    closing[at] = last.get(runs[at].opens);
    last.set(runs[at].end - runs[at].start, at);
  }
  for (let at = 0; at < runs.length; ) {
    const close = closing[at];
    if (close === undefined || !runs[at].opens) at += 1;
    else {
      hidden.push([runs[at].end - runs[at].opens, runs[close].end]);
      at = close + 1;
    }
  }
}

/** How many of the open containers `line` stays in, where the rest of the line starts and
 * its column, and the column the innermost one's content is indented from.
 * @param {string} line @param {number[]} containers @returns {[number, number, number, number]} */
function matchContainers(line, containers) {
  let pos = 0;
  let column = 0;
  let base = 0;
  for (let depth = 0; depth < containers.length; depth += 1) {
    const [first, firstColumn] = skipSpace(line, pos, column);
    if (containers[depth] === QUOTE) {
      if (firstColumn - base > 3 || line[first] !== ">") return [depth, pos, column, base];
      [pos, column] = afterQuote(line, first, firstColumn);
      base = column;
    } else if (first < line.length && firstColumn - base < containers[depth]) {
      return [depth, pos, column, base];
    } else base += containers[depth];
  }
  return [containers.length, pos, column, base];
}

/** Where a block quote's content starts after its `>` at `pos`, and its column.
 * @param {string} line @param {number} pos @param {number} column @returns {[number, number]} */
function afterQuote(line, pos, column) {
  const next = line[pos + 1];
  if (next === " " || (next === "\t" && (column + 1) % 4 === 3)) return [pos + 2, column + 2];
  return next === "\t" ? [pos + 1, column + 2] : [pos + 1, column + 1];
}

/** The first position from `pos` that is no space or tab, and its column (tab stops of 4).
 * @param {string} line @param {number} pos @param {number} column @returns {[number, number]} */
function skipSpace(line, pos, column) {
  while (pos < line.length && (line[pos] === " " || line[pos] === "\t")) {
    column = line[pos] === "\t" ? column + 4 - (column % 4) : column + 1;
    pos += 1;
  }
  return [pos, column];
}

/** @param {string} line @param {number} pos @param {string} char */
function runLength(line, pos, char) {
  let end = pos;
  while (line[end] === char) end += 1;
  return end - pos;
}

/** @param {string} line @param {number} pos @param {string} char @param {number} length */
function closes(line, pos, char, length) {
  const run = runLength(line, pos, char);
  return run >= length && /^[ \t]*$/.test(line.slice(pos + run));
}

/** A list item starting at `pos`: its content column, where its content starts (null: the
 * line ends there), whether that content is indented code, and whether it may interrupt a
 * paragraph. @param {string} line @param {number} pos @param {number} column */
function listItem(line, pos, column) {
  const marker = matchesAt(LIST_MARKER, line, pos);
  if (!marker) return null;
  const end = pos + marker[0].length;
  if (end < line.length && line[end] !== " " && line[end] !== "\t") return null;
  const markerColumn = column + end - pos;
  const [content, contentColumn] = skipSpace(line, end, markerColumn);
  const ordered = /[0-9]/.test(marker[0][0]);
  const empty = content === line.length;
  const mayInterrupt =
    !empty && (!ordered || marker[0].slice(0, -1).replace(/^0+/, "") === "1");
  if (empty) return { contentColumn: markerColumn + 1, content: null, indentedCode: false, mayInterrupt };
  if (contentColumn - markerColumn > 4) {
    return { contentColumn: markerColumn + 1, content, indentedCode: true, mayInterrupt };
  }
  return { contentColumn, content, indentedCode: false, mayInterrupt };
}

/** Whether `line` starts a block that ends a paragraph it would otherwise lazily continue.
 * @param {string} line @param {number} pos */
function startsBlock(line, pos) {
  const char = line[pos];
  if (char === "`" || char === "~") {
    const length = runLength(line, pos, char);
    if (length >= 3) return char === "~" || !line.includes("`", pos + length);
  }
  return (
    char === ">" ||
    Boolean(matchesAt(THEMATIC_BREAK, line, pos)) ||
    Boolean(matchesAt(ATX, line, pos)) ||
    listItem(line, pos, 0) !== null
  );
}

/** The HTML comments `<!-- ... -->` in `text`, which are not shown, in order.
 * @param {string} text @returns {Array<[number, number]>} */
function htmlComments(text) {
  /** @type {Array<[number, number]>} */
  const comments = [];
  let start = text.indexOf("<!--");
  while (start !== -1) {
    const end = text.indexOf("-->", start + 4);
    if (end === -1) break;
    comments.push([start, end + 3]);
    start = text.indexOf("<!--", end + 3);
  }
  return comments;
}

/** A URI autolink, `<https://...>`: no marker is in it. */
const AUTOLINK = /<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>/g;
/** What may follow a marker in a link's text up to its closing `](`: text and bracketed
 * words (more markers), no bracket else. */
const LINK_TEXT = /(?:[^[\]]|\[[^[\]]*\])*/y;

/** The runs of markers that are in a link's text, `[see [1] and [2]](https://...)`,
 * `[see 【1】](https://...)`: from a marker of any style (one of `markers`, in order) on,
 * over text and bracketed words, up to a `](`, unless a link is among them (a link's text
 * holds no link: the outer brackets are text then). Each run is read once.
 * @param {string} text @param {Set<string>} labels
 * @param {ReadonlyArray<{ start: number, end: number }>} markers
 * @returns {Array<[number, number]>} */
function linkTextRuns(text, labels, markers) {
  /** @type {Array<[number, number]>} */
  const runs = [];
  let end = 0;
  for (const marker of markers) {
    if (marker.start < end) continue; // in the run read last
    LINK_TEXT.lastIndex = marker.end;
    LINK_TEXT.exec(text);
    end = LINK_TEXT.lastIndex;
    const inner = text.slice(marker.start, end);
    if (text.startsWith("](", end) && !holdsLink(inner, labels)) runs.push([marker.start, end]);
  }
  return runs;
}

/** Whether `text`, in a link's text, holds a link: `[x](...)` or a defined label.
 * @param {string} text @param {Set<string>} labels */
function holdsLink(text, labels) {
  if (text.includes("](")) return true;
  for (const word of text.matchAll(/\[([^[\]]*)\]/g)) {
    if (labels.has(normalLabel(word[1]))) return true;
  }
  return false;
}

/** Whether the bracketed `marker` ending at `end` is a link's text: followed by `(`, by a
 * defined label (`[]`: its own), or itself a defined label and followed by none.
 * @param {string} text @param {number} end @param {string} marker @param {Set<string>} labels */
function isLink(text, end, marker, labels) {
  if (text[end] === "(") return true;
  if (!labels.size) return false;
  const label = /\[([^[\]]{0,999})\]/y;
  label.lastIndex = end;
  const found = label.exec(text);
  return labels.has(normalLabel(found && found[1] ? found[1] : marker.slice(1, -1)));
}

/** Whether `position` is in one of the `code` spans (in order, not overlapping).
 * @param {number} position @param {Array<[number, number]>} code */
function inCode(position, code) {
  let low = 0;
  let high = code.length; // the first span starting after `position` is in [low, high]
  while (low < high) {
    const middle = (low + high) >> 1;
    if (code[middle][0] <= position) low = middle + 1;
    else high = middle;
  }
  return low > 0 && position < code[low - 1][1];
}

// -- showing fields -------------------------------------------------------------------------

/** How many characters of a field a source card shows inline (moca_agui.client.FIELD_LIMIT). */
export const FIELD_LIMIT = 160;
/** The same for a badge's label, which holds a review's outcome (LABEL_LIMIT). */
export const LABEL_LIMIT = 60;

/** How many characters of a cut label's end are kept: a review's " (signed)". */
export const LABEL_END = 12;

/**
 * `value` as a card shows it inline: cut to `limit` characters with an ellipsis (before the
 * last `keepEnd` characters, which stay), and the whole value (for a `title` attribute) when
 * it was cut, else null. A 300,000-character title or review outcome cannot push a badge out
 * of sight. moca_agui.client cuts the same way.
 * @param {unknown} value @param {number} [limit] @param {number} [keepEnd]
 * @returns {{ text: string, whole: string | null }}
 */
export function shortText(value, limit = FIELD_LIMIT, keepEnd = 0) {
  const text = String(value);
  if (text.length <= limit) return { text, whole: null };
  let end = limit - keepEnd;
  if (/[\ud800-\udbff]/.test(text[end - 1])) end -= 1; // not half a surrogate pair
  let start = text.length - keepEnd;
  if (/[\udc00-\udfff]/.test(text[start] ?? "")) start += 1;
  return { text: `${text.slice(0, end)}\u2026${keepEnd ? text.slice(start) : ""}`, whole: text };
}

// -- dates ----------------------------------------------------------------------------------

/** @type {Intl.DateTimeFormatOptions} */
const DAY = { year: "numeric", month: "short", day: "numeric" };
const DATE = /\d{4}-\d{2}-\d{2}(?:[Tt]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2}))?/g;

/**
 * `text` cut at each ISO 8601 date or date-time in it (as records and badge details write
 * them): strings, and `{ iso, readable }` for each date, readable in `locale` and `timeZone`
 * (default: the user's), the time zone named. A date-only value is a calendar day.
 * @param {string} text @param {{ locale?: string, timeZone?: string }} [options]
 * @returns {Array<string | { iso: string, readable: string }>}
 */
export function withReadableDates(text, options = {}) {
  /** @type {Array<string | { iso: string, readable: string }>} */
  const parts = [];
  let position = 0;
  /** @type {Intl.DateTimeFormat | undefined} */
  let days;
  /** @type {Intl.DateTimeFormat | undefined} */
  let times;
  for (const match of text.matchAll(DATE)) {
    const iso = match[0];
    const at = match.index ?? 0;
    const dateOnly = iso.length === 10;
    const time = new Date(dateOnly ? `${iso}T00:00:00Z` : iso);
    if (Number.isNaN(time.getTime())) continue;
    // One formatter of each kind for the whole text: making one costs as much as a hundred
    // dates formatted, which a record holding 20,000 dates paid 20,000 times.
    const format = dateOnly
      ? (days ??= new Intl.DateTimeFormat(options.locale, { ...DAY, timeZone: "UTC" }))
      : (times ??= new Intl.DateTimeFormat(options.locale, { ...DAY, hour: "2-digit",
        minute: "2-digit", timeZoneName: "short", timeZone: options.timeZone }));
    if (at > position) parts.push(text.slice(position, at));
    parts.push({ iso, readable: format.format(time) });
    position = at + iso.length;
  }
  if (position < text.length) parts.push(text.slice(position));
  return parts;
}
