// The CitationMiddleware with @ag-ui/client 1.x (js/'s own); client-0.0.59/ runs the same
// suite with 0.0.59. And what a browser imports of the package needs no Node-only API.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import * as client from "@ag-ui/client";
import { MocaCitations } from "moca-agui";
import { CitationMiddleware } from "moca-agui/middleware";
import { middlewareSuite } from "./middleware-suite.js";

middlewareSuite({ client, CitationMiddleware, MocaCitations, version: "@ag-ui/client 1.x" });

test("what a browser imports of the package names no node: module, nor process or Buffer", () => {
  for (const file of ["index.js", "react.js", "middleware.js"]) {
    const source = readFileSync(new URL(`../${file}`, import.meta.url), "utf8");
    const imports = [...source.matchAll(/^import [^;]* from "([^"]+)";/gm)].map((m) => m[1]);
    assert.deepEqual(imports.filter((name) => !["@ag-ui/client", "rxjs", "react", "./index.js"].includes(name)), [], file);
    assert.doesNotMatch(source, /\bprocess\.|\bBuffer\b|require\(/, file);
  }
});
