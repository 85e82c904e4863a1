// The README's @ag-ui/client snippets, run as shown against a real `moca-agui demo`: each
// must print what the README says it prints.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { promisify } from "node:util";

import { startDemo } from "./demo.js";

const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");

/** The fenced block right after `<!-- kind: name -->` in the README. */
export function block(kind, name) {
  const match = new RegExp(`<!-- ${kind}: ${name} -->\\n\`\`\`[a-z]*\\n([^]*?)\`\`\`\\n`).exec(README);
  assert.ok(match, `no ${kind} ${name} in js/README.md`);
  return match[1];
}

let demo;
before(async () => { demo = await startDemo("ag-ui"); });
after(async () => { await demo?.stop(); });

for (const [name, about] of [["plain", "the sources"], ["inline", "the answer, each mention labelled"]]) {
  test(`the ${name} @ag-ui/client snippet prints ${about} as shown`, async () => {
    const code = block("snippet", name);
    assert.ok(code.includes('"http://127.0.0.1:8000/"'));
    // inside the package, so that "moca-agui" resolves to it as it does for an installed one
    const dir = mkdtempSync(new URL("./.snippet-", import.meta.url).pathname);
    try {
      writeFileSync(`${dir}/${name}.mjs`, code.replace("http://127.0.0.1:8000/", demo.url));
      const { stdout } = await promisify(execFile)(process.execPath, [`${dir}/${name}.mjs`]);
      assert.equal(stdout, block("output", name));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
