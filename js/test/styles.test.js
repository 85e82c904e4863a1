// moca-agui/styles.css as the package ships it: importable by its name, nothing remote, in no
// cascade layer (so a layered reset cannot undo it), and every rule scoped to the components.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

const css = readFileSync(new URL("../styles.css", import.meta.url), "utf8");
const rules = css.replace(/\/\*[^]*?\*\//g, "");

test("moca-agui/styles.css resolves to the package's styles.css", () => {
  const resolved = fileURLToPath(import.meta.resolve("moca-agui/styles.css"));
  assert.equal(resolved, fileURLToPath(new URL("../styles.css", import.meta.url)));
});

test("it loads nothing and sits in no cascade layer", () => {
  assert.doesNotMatch(rules, /@import|url\(|@layer|@font-face/);
});

test("every rule is scoped to the components' classes", () => {
  const selectors = [...rules.matchAll(/([^{}]+)\{[^{}]*\}/g)]
    .map(([, selector]) => selector.replace(/@media[^{]*\{/, "").trim());
  assert.ok(selectors.length > 30);
  for (const list of selectors) {
    for (const selector of list.split(",")) {
      assert.match(selector.trim(), /(^|\s|\()\.moca-(sources|mention|cite|card|not-a-source)\b/, selector);
    }
  }
});
