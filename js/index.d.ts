// Types of moca-agui (index.js). A citation record is citation-record.schema.json (v1).
import type { AgentSubscriber } from "@ag-ui/client";

export declare const EVENT_NAME: "moca.citations";
export declare const EVENT_VERSION: 1;
export declare const POSITIVE_OUTCOMES: readonly string[];

export interface Claim {
  by: string;
  at?: string;
}

export interface AttestedReview {
  reviewer: string;
  reviewedAt: string;
  outcome: string;
  signer: string;
  scope?: string;
  [field: string]: unknown;
}

export interface Evidence {
  source: { id?: string; title?: string; url?: string; resource?: string; [field: string]: unknown };
  selector?: { exact?: string; [field: string]: unknown };
  note?: string;
  matched?: boolean;
  [field: string]: unknown;
}

/** A citation record as the Reader produced it; every field is data, never markup. */
export interface CitationRecord {
  package: { id: string; version: string; digest: string; signed: boolean; signers?: string[] };
  node: {
    id: string;
    path: string;
    type: string;
    ref: string;
    locale?: string;
    title?: string;
    description?: string;
    tags?: string[];
    digest?: string;
  };
  trust: {
    status: "draft" | "stable" | "deprecated";
    declaredVerified: Claim[];
    attestedReviews: AttestedReview[];
    stale: boolean;
    inForce: boolean;
    superseded: boolean;
    contested: boolean;
    generated?: Claim | null;
    staleAfter?: string;
    validFrom?: string;
    validUntil?: string;
    supersededBy?: string[];
    contestedBy?: string[];
  };
  span?: { start: number; end: number };
  text?: string;
  evidence?: Evidence[];
  concepts?: string[];
  audience?: string;
  profiles?: string[];
  score?: number;
  retrieval?: { via: "search" | "requires" | "parts" | "narrower" | "related"; from?: string };
}

/** One source of a message: a valid record and the marker the answer uses for it, if any. */
export interface Citation {
  marker: string | null;
  /**
   * Every marker the event gave this node (one per span cited), `marker` first; read as
   * `[marker]` when absent. `readCitations` always sets it.
   */
  markers?: readonly string[];
  record: CitationRecord;
}

/** What the store holds for one message: one citation per `record.node.ref`, in order. */
export interface MessageCitations {
  /** When the Reader computed the trust flags (RFC 3339), or null if the event had none. */
  computedAt: string | null;
  citations: readonly Citation[];
}

export interface CitationsValue extends MessageCitations {
  messageId: string;
}

/** A message as an AG-UI client holds it (only these fields are read). */
export interface HeldMessage {
  id: string;
  role: string;
  content?: unknown;
  metadata?: unknown;
}

/** The AgentSubscriber that `MocaCitations.subscriber()` returns. */
export interface CitationsSubscriber extends AgentSubscriber {
  onCustomEvent(params: {
    event: { name: string; value: unknown };
    messages: ReadonlyArray<HeldMessage>;
  }): void;
  onMessagesSnapshotEvent(params: { event: { messages: ReadonlyArray<HeldMessage> } }): void;
}

/** The key of an assistant message's `metadata` that carries its event's value. */
export declare const METADATA_KEY: "moca.citations";

export declare class MocaCitations {
  get(messageId: string): MessageCitations | undefined;
  subscribe(listener: () => void): () => void;
  subscriber(): CitationsSubscriber;
  fromMessages(messages: ReadonlyArray<HeldMessage>): void;
}

export type Tone = "good" | "info" | "warning" | "danger";

export interface Badge {
  /** Stable, for styling and tests: "attested-review", "stale", ... */
  key: string;
  label: string;
  tone: Tone;
  detail: string;
}

export interface Mention {
  start: number;
  end: number;
  /** `citations[0]`: the citation referred to, or null for a ref the service left out. */
  citation: Citation | null;
  /**
   * Every citation the marker opens (`[1, 2]`: both sources), in the order it names their
   * numbers, the others in the event's order; empty for a ref the service left out.
   */
  citations: readonly Citation[];
}

/** What a marker names: a number, or a range of numbers as written (`1-3`, `1–3`). */
export type MarkerItem = number | { from: number; to: number };

/** A marker written in an answer, where CommonMark shows it as text. */
export interface WrittenMarker {
  start: number;
  end: number;
  /** The marker's whole text, `text.slice(start, end)`: `"[1, 2]"`, `"【1†source】"`. */
  text: string;
  /** Its style's name: "numbered", "grouped", "footnote" or "fullwidth". */
  style: string;
  /** The numbers and ranges it names, in the order written. */
  items: readonly MarkerItem[];
}

/** One marker style: one module of `markers/`, the twin of one of moca_agui.markers. */
export interface MarkerStyle {
  readonly name: string;
  /** The character its markers start with. */
  readonly opener: string;
  /** What may be a marker of the style (flag `g`): each match a whole text. */
  readonly pattern: RegExp;
  /** What a text `pattern` matched names, as written; null if it names no number. */
  items(marker: string): MarkerItem[] | null;
}

export declare function recordProblem(record: unknown): string | null;
export declare function readCitations(value: unknown): CitationsValue | null;
export declare function trustBadges(record: CitationRecord): Badge[];
export declare function safeUrl(value: unknown): string | null;
/** Whether `value` is an RFC 3339 date-time with an offset, ASCII digits, each field in range. */
export declare function isRfc3339(value: unknown): value is string;
/** The AG-UI events of an SSE body; a frame that is not a JSON object with a string `type` is
 * skipped with a console warning, and the stream goes on. */
export declare function sseEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<Record<string, unknown>, void, undefined>;
/** A fetch for HttpAgent whose SSE answers skip, with a console warning, every frame that is
 * not an AG-UI event, where @ag-ui/client would end the run on it. */
export declare function skipBadFrames(
  fetchFunction?: typeof fetch,
): (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
export declare const FIELD_LIMIT: number;
export declare const LABEL_LIMIT: number;
export declare const LABEL_END: number;
/** `value` cut to `limit` characters (FIELD_LIMIT) with an ellipsis before its last `keepEnd`
 * characters; `whole` when cut. */
export declare function shortText(
  value: unknown,
  limit?: number,
  keepEnd?: number,
): { text: string; whole: string | null };
export declare function locateMarkers(text: string, citations: ReadonlyArray<Citation>): Mention[];
/** The marker styles read, by module name as moca_agui.markers has them: footnote `[^1]`,
 * full-width `【1】` / `【1†source】`, grouped `[1, 2]` / ranged `[1-3]`, numbered `[1]`. */
export declare const MARKER_STYLES: ReadonlyArray<MarkerStyle>;
/** How many numbers a range names at most (10): a longer one names nothing. */
export declare const MAX_RANGE: number;
/** How long a marker's whole text is at most (64 code points): a longer one names nothing. */
export declare const MAX_MARKER_LENGTH: number;
/** The markers written in `text` in any style, where CommonMark shows them as text (not in
 * code, a link, an autolink or an HTML comment), in text order. */
export declare function findWrittenMarkers(text: string): WrittenMarker[];
/** The style and items of a whole marker text, or null if it is no style's marker or names
 * no number (a plugin's `[S1]`). */
export declare function readMarker(marker: string): { style: string; items: MarkerItem[] } | null;
/** The numbers `items` name, in order, each once: a range only when it goes up, holds at
 * most MAX_RANGE numbers and `knows` both its ends. */
export declare function namedNumbers(
  items: ReadonlyArray<MarkerItem>,
  knows: (n: number) => boolean,
): number[];
export declare function withReadableDates(
  text: string,
  options?: { locale?: string; timeZone?: string },
): Array<string | { iso: string; readable: string }>;
