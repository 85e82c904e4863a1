// The case table shared with moca_agui.client (Python): tests/client/client-cases.json.
import { readFileSync } from "node:fs";

export const CASES = JSON.parse(
  readFileSync(new URL("../../tests/client/client-cases.json", import.meta.url), "utf8"));

/** The case's own `record`, or the table's `base` with the case's `set` applied. */
export function caseRecord(c) {
  if ("record" in c) return c.record;
  const record = structuredClone(CASES.base);
  for (const [path, value] of Object.entries(c.set)) {
    const keys = path.split(".");
    const last = keys.pop();
    const target = keys.reduce((object, key) => object[key], record);
    if (value === "__delete__") delete target[last];
    else target[last] = value;
  }
  return record;
}
