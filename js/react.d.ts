// Types of moca-agui/react (react.js).
import type { ReactElement, ReactNode, RefObject } from "react";
import type { MessageCitations, MocaCitations } from "./index.js";

export interface MocaSourcesProps {
  /** A message's citations: `useMocaCitations(store, id)` or `readCitations(value)`. */
  value: MessageCitations | null | undefined;
  /** How dates are shown (default: the user's locale and time zone); ISO on hover. */
  locale?: string;
  timeZone?: string;
}

export interface MocaMarkersProps {
  /** The message's citations, as for `<MocaSources>`; nothing is wrapped until they come. */
  value: MessageCitations | null | undefined;
  /** The rendered answer (any Markdown renderer's output). */
  children?: ReactNode;
}

export declare function useMocaCitations(
  store: MocaCitations,
  messageId: string | undefined,
): MessageCitations | undefined;

/** A message's sources: one line per source, details behind a disclosure (as `renderSources`). */
export declare function MocaSources(props: MocaSourcesProps): ReactElement | null;

/**
 * The answer's markers as controls (`citeMarkers` of moca-agui/dom) in what `ref` renders,
 * applied after each render and each change of its content.
 */
export declare function useMocaMarkers(
  ref: RefObject<Element | null>,
  value: MessageCitations | null | undefined,
): void;

/** `children` in a `<div class="moca-markers">`, their markers as controls (`useMocaMarkers`). */
export declare function MocaMarkers(props: MocaMarkersProps): ReactElement;
