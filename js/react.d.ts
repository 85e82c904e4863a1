// Types of moca-agui/react (react.js).
import type { ReactElement } from "react";
import type { MessageCitations, MocaCitations } from "./index.js";

export interface MocaSourcesProps {
  /** A message's citations: `useMocaCitations(store, id)` or `readCitations(value)`. */
  value: MessageCitations | null | undefined;
  /** How dates are shown (default: the user's locale and time zone); ISO on hover. */
  locale?: string;
  timeZone?: string;
}

export declare function useMocaCitations(
  store: MocaCitations,
  messageId: string | undefined,
): MessageCitations | undefined;

export declare function MocaSources(props: MocaSourcesProps): ReactElement | null;
