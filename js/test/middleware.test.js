// The CitationMiddleware with @ag-ui/client 1.x (js/'s own); client-0.0.59/ runs the same
// suite with 0.0.59. And what a browser imports of the package needs no Node-only API.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { test } from "node:test";
import * as client from "@ag-ui/client";
import { MocaCitations } from "moca-agui";
import { CitationMiddleware } from "moca-agui/middleware";
import { middlewareSuite } from "./middleware-suite.js";

middlewareSuite({ client, CitationMiddleware, MocaCitations, version: "@ag-ui/client 1.x" });

test("what a browser imports of the package names no node: module, nor process or Buffer", () => {
  const files = ["index.js", "react.js", "middleware.js",
    ...readdirSync(new URL("../middleware/", import.meta.url)).map((name) => `middleware/${name}`)];
  for (const file of files) {
    const source = readFileSync(new URL(`../${file}`, import.meta.url), "utf8");
    const imports = [...source.matchAll(/^(?:import|export) [^;]* from "([^"]+)";/gm)].map((m) => m[1]);
    const foreign = imports.filter((name) => !name.startsWith(".") && !["@ag-ui/client", "rxjs", "react"].includes(name));
    assert.deepEqual(foreign, [], file);
    assert.doesNotMatch(source, /\bprocess\.|\bBuffer\b|require\(/, file);
  }
});
