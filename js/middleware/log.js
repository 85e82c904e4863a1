// The middleware's log lines: console, prefixed, never thrown (a failure is logged and the
// agent's stream flows on).

export const log = {
  /** @param {string} message @param {unknown[]} rest */
  warn: (message, ...rest) => console.warn(`moca-agui: ${message}`, ...rest),
  /** @param {string} message @param {unknown[]} rest */
  debug: (message, ...rest) => console.debug(`moca-agui: ${message}`, ...rest),
};

/** What a caught `error` says. @param {unknown} error */
export const reason = (error) => (error instanceof Error ? error.message : String(error));
