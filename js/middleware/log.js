// The middleware's log lines: to the `logger` option, prefixed, never thrown (a failure is
// logged and the agent's stream flows on). Debug lines are silent unless a logger takes
// them, as the Python core's logger.debug is by default.

/** @typedef {(message: string, ...rest: unknown[]) => void} Write
 * @typedef {{ debug: Write, warn: Write }} Logger */

/** Where lines go by default: warnings to console (looked up per line), no debug lines. */
export const DEFAULT_LOGGER = Object.freeze({
  /** @type {Write} */
  debug: () => {},
  /** @type {Write} */
  warn: (message, ...rest) => console.warn(message, ...rest),
});

/** The log lines of one middleware: each to its `logger`, prefixed. */
export class Log {
  /** @param {Logger} logger */
  constructor(logger) {
    this.logger = logger;
  }

  /** @param {string} message @param {unknown[]} rest */
  warn(message, ...rest) {
    this.logger.warn(`moca-agui: ${message}`, ...rest);
  }

  /** @param {string} message @param {unknown[]} rest */
  debug(message, ...rest) {
    this.logger.debug(`moca-agui: ${message}`, ...rest);
  }
}

/** What a caught `error` says. @param {unknown} error */
export const reason = (error) => (error instanceof Error ? error.message : String(error));
