// The middleware's options: the Python core's (CitationOptions), in camelCase, with its
// defaults; checked once, so one instance serves many runs.
import { DEFAULT_LOGGER } from "./log.js";

/** The tool names of the reference MOCA Reader (moca_agui.DEFAULT_READER_TOOLS). */
export const DEFAULT_READER_TOOLS = Object.freeze(["moca_search", "moca_get_node", "moca_structure"]);

const DEFAULTS = Object.freeze({
  readerTools: DEFAULT_READER_TOOLS,
  includeText: true,
  lookup: null,
  packages: null,
  maxEventBytes: 256 * 1024,
  lookupTimeout: 10,
  maxLookups: 64,
  lookupConcurrency: 8,
  lookupDeadline: 30,
  keptThread: null,
  logger: DEFAULT_LOGGER,
});

/**
 * @typedef {import("../middleware.d.ts").CitationMiddlewareOptions} CitationMiddlewareOptions
 * @typedef {{ readerTools: Set<string>, includeText: boolean,
 *   lookup: ((ref: string) => unknown) | null, packages: Set<string> | null,
 *   maxEventBytes: number, lookupTimeout: number, maxLookups: number,
 *   lookupConcurrency: number, lookupDeadline: number,
 *   keptThread: ((input: unknown) => unknown) | null,
 *   logger: import("./log.js").Logger }} Options
 */

/** Options checked once: unknown names and wrong types are a TypeError.
 * @param {CitationMiddlewareOptions} given @returns {Options} */
export function citationOptions(given = {}) {
  if (given === null || typeof given !== "object") throw new TypeError("options must be an object");
  const unknown = Object.keys(given).filter((name) => !(name in DEFAULTS)).sort();
  if (unknown.length) {
    throw new TypeError(`unknown moca-agui option(s) ${unknown.join(", ")}; ` +
      `the options are ${Object.keys(DEFAULTS).sort().join(", ")}`);
  }
  const options = { ...DEFAULTS, ...given };
  const names = (/** @type {unknown} */ value, /** @type {string} */ option) => {
    if (typeof value === "string" || value === null || typeof value !== "object" ||
        !(Symbol.iterator in value)) {
      throw new TypeError(`${option} must be a collection of strings, e.g. [${JSON.stringify(value)}]`);
    }
    const set = new Set(/** @type {Iterable<unknown>} */ (value));
    if (![...set].every((name) => typeof name === "string")) {
      throw new TypeError(`${option} must hold strings only`);
    }
    return /** @type {Set<string>} */ (set);
  };
  if (options.keptThread !== null && typeof options.keptThread !== "function") {
    throw new TypeError("keptThread must be a function taking the run's input and returning its messages");
  }
  if (options.lookup !== null && typeof options.lookup !== "function") {
    throw new TypeError("lookup must be a function taking a ref and returning a record or null");
  }
  for (const option of ["maxEventBytes", "maxLookups", "lookupConcurrency"]) {
    const count = /** @type {any} */ (options)[option];
    if (!Number.isInteger(count) || count <= 0) throw new TypeError(`${option} must be a positive integer`);
  }
  for (const option of ["lookupTimeout", "lookupDeadline"]) {
    const seconds = /** @type {any} */ (options)[option];
    if (typeof seconds !== "number" || !(seconds > 0)) {
      throw new TypeError(`${option} must be a positive number of seconds`);
    }
  }
  if (typeof options.includeText !== "boolean") throw new TypeError("includeText must be a boolean");
  return {
    ...options,
    readerTools: names(options.readerTools, "readerTools"),
    packages: options.packages === null ? null : names(options.packages, "packages"),
    lookup: /** @type {Options["lookup"]} */ (options.lookup),
    keptThread: /** @type {Options["keptThread"]} */ (options.keptThread),
    logger: loggerOf(options.logger),
  };
}

/** The logger `given`, each level it leaves out the default's (warnings to console, no debug
 * lines). @param {unknown} given @returns {import("./log.js").Logger} */
function loggerOf(given) {
  if (given === null || typeof given !== "object") {
    throw new TypeError("logger must be an object with debug and/or warn functions, e.g. console");
  }
  const { debug = DEFAULT_LOGGER.debug, warn = DEFAULT_LOGGER.warn } = /** @type {any} */ (given);
  if (typeof debug !== "function" || typeof warn !== "function") {
    throw new TypeError("logger's debug and warn must be functions");
  }
  return { debug: debug.bind(given), warn: warn.bind(given) };
}

