// Types of moca-agui/dom (dom.js): the answer's markers as controls, and the source list,
// for any web page (no framework). Style them with moca-agui/styles.css.
import type { Citation, MessageCitations } from "./index.js";

export interface CiteOptions {
  /**
   * Where a marker's sources are listed (an element holding `renderSources`' list or
   * `<MocaSources>`): a click or Enter on a marker scrolls to, highlights and focuses its
   * source there. Default: the first `.moca-sources` after `element` in the page, else the
   * first in the page.
   */
  sources?: Element | null;
}

/**
 * Wraps each marker (`[1]`, `[1, 2]`, `[^1]`, a cited ref) of the answer rendered in
 * `element` in a control: a `<span class="moca-mention">` holding a
 * `<button class="moca-cite">` that keeps the marker's text, and its card
 * (`<span class="moca-card" role="tooltip">`, the button's `aria-describedby`) naming each
 * source the marker opens: title, package and version, every warning state, then its
 * strongest verification. The card shows on hover and keyboard focus, kept in the window
 * (Escape hides it); a
 * click or Enter shows the source in the list. A ref the service left out becomes
 * `<span class="moca-not-a-source">` (flagged "not a source"). Only text nodes outside
 * `code`, `pre`, links and controls are read (a marker a Markdown renderer split across
 * elements, `[<em>1</em>]`, too); nothing is written as HTML. Idempotent: call it again
 * after each render; markers already wrapped are left. Text it cannot read (a value that is
 * not an event's) stays as it was, with a console warning. Returns how many it wrapped.
 */
export declare function citeMarkers(
  element: Element,
  value: MessageCitations | null | undefined,
  options?: CiteOptions,
): number;

export interface SourcesOptions {
  /** How dates are shown (default: the user's locale and time zone); ISO on hover. */
  locale?: string;
  timeZone?: string;
}

/**
 * A message's sources as `<section class="moca-sources">`, the same elements as
 * `<MocaSources>`: one line per source (`article.source`: marker, title, every badge), its
 * details (package and version, ref, what each badge means, description, evidence, text)
 * in a closed `<details class="more">`; "No sources from the loaded packages." when it has
 * none. Every field is text, a link's `href` only comes from `safeUrl`.
 */
export declare function renderSources(value: MessageCitations, options?: SourcesOptions): HTMLElement;

/**
 * Shows `citations` in the list `sources`: each one's `article.source` gets the class
 * `selected` (the others lose it), the first is scrolled into view and focused. Returns it,
 * or null when none is listed there.
 */
export declare function showSources(
  sources: ParentNode,
  citations: ReadonlyArray<Citation>,
): HTMLElement | null;
