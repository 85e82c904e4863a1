// What a TypeScript user of moca-agui writes; `tsc -p .` checks it against the shipped types.
import { HttpAgent } from "@ag-ui/client";
import {
  type Badge, type Citation, type MarkerItem, MocaCitations, findWrittenMarkers, locateMarkers, namedNumbers, safeUrl,
  trustBadges,
} from "moca-agui";
import { CitationMiddleware, DEFAULT_READER_TOOLS, instrument } from "moca-agui/middleware";
import { MocaMarkers, MocaSources, useMocaCitations, useMocaMarkers } from "moca-agui/react";
import { citeMarkers, renderSources, showSources } from "moca-agui/dom";
import { createElement, useRef } from "react";

const store = new MocaCitations();
const agent = new HttpAgent({ url: "http://127.0.0.1:8000/" });
agent.use(new CitationMiddleware({
  readerTools: [...DEFAULT_READER_TOOLS, "kb_search"],
  lookup: async (ref: string) => (ref ? null : null),
  keptThread: (input) => input.messages,
}));
const cited: HttpAgent = instrument(new HttpAgent({ url: "http://127.0.0.1:8000/" }), { includeText: false });
instrument(new HttpAgent({ url: "http://127.0.0.1:8000/" }), { logger: console });
instrument(new HttpAgent({ url: "http://127.0.0.1:8000/" }), { logger: { debug: (line: string) => void line } });
void cited.runAgent({}, store.subscriber());
agent.subscribe(store.subscriber());
void agent.runAgent({}, store.subscriber());

const sources = store.get("message-id");
const citations: readonly Citation[] = sources?.citations ?? [];
const badges: Badge[] = citations.flatMap((c) => trustBadges(c.record));
const link: string | null = safeUrl(citations[0]?.record.evidence?.[0]?.source.url);
const stop: () => void = store.subscribe(() => {});
const mentions = locateMarkers("See [1].", citations).map((m) => m.citation?.marker ?? "left out");
const opened: readonly Citation[][] = locateMarkers("See [1, 2].", citations).map((m) => [...m.citations]);
const written: number[][] = findWrittenMarkers("See [1-3].").map((m) => {
  const items: readonly MarkerItem[] = m.items;
  return namedNumbers(items, (n) => n <= 3);
});

export function Sources({ messageId }: { messageId: string }) {
  return createElement(MocaSources, { value: useMocaCitations(store, messageId), locale: "en" });
}
export function Answer({ messageId, text }: { messageId: string; text: string }) {
  const value = useMocaCitations(store, messageId);
  const ref = useRef<HTMLParagraphElement>(null);
  useMocaMarkers(ref, value);
  return createElement(MocaMarkers, { value }, createElement("p", { ref }, text));
}

export function plainPage(answer: Element, value = store.get("message-id")) {
  const wrapped: number = citeMarkers(answer, value, { sources: document.body });
  const list: HTMLElement | null = value ? renderSources(value, { locale: "en" }) : null;
  const shown: HTMLElement | null = list ? showSources(list, value?.citations ?? []) : null;
  return { wrapped, shown };
}
export { badges, link, mentions, opened, stop, written };
