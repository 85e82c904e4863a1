// The conformance corpus (tests/conformance/cases/*.json), run by the TypeScript middleware:
// the Python core runs the same cases (tests/conformance/test_corpus.py). A case either
// fails is a bug in that implementation. A `pending` case names a rule one side has yet to
// follow: it must fail here until it passes, and then lose its mark.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { test } from "node:test";
import { from, lastValueFrom, toArray } from "rxjs";
import { CitationMiddleware } from "moca-agui/middleware";

const CASES = new URL("../../tests/conformance/cases/", import.meta.url);
const TIME = "<time>";
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** The Python core's option names, as the middleware spells them. */
const camel = (name) => name.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

/** `value` with each `computedAt` written as TIME (checked to be RFC 3339 first). */
function timeless(value) {
  if (Array.isArray(value)) return value.map(timeless);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => {
      if (k !== "computedAt") return [k, timeless(v)];
      assert.match(v, RFC3339);
      return [k, TIME];
    }));
  }
  return value;
}

/** What the middleware sends for one case. */
export async function cited(c) {
  const options = Object.fromEntries(Object.entries(c.options ?? {}).map(([k, v]) => [camel(k), v]));
  if (c.lookup) options.lookup = async (ref) => c.lookup[ref] ?? null;
  if ("kept" in c) options.keptThread = () => structuredClone(c.kept);
  const middleware = new CitationMiddleware(options);
  const next = { run: () => from(structuredClone(c.events)) };
  const sent = await lastValueFrom(middleware.run(c.input ?? {}, next).pipe(toArray()));
  return timeless(JSON.parse(JSON.stringify(sent)));
}

const files = readdirSync(CASES).filter((f) => f.endsWith(".json")).sort();
for (const file of files) {
  for (const c of JSON.parse(readFileSync(new URL(file, CASES), "utf8")).cases) {
    test(`${file}: ${c.name}`, { silent: true }, async () => {
      const quiet = [console.warn, console.debug];
      console.warn = console.debug = () => {};
      try {
        const sent = await cited(c);
        if (!c.pending) {
          assert.deepStrictEqual(sent, c.expected);
          return;
        }
        assert.notDeepStrictEqual(sent, c.expected,
          `pending (${c.pending}) and passing: remove its "pending" mark`);
      } finally {
        [console.warn, console.debug] = quiet;
      }
    });
  }
}
