// CopilotKit's v2 entry imports its stylesheet; Node cannot load CSS, and the test needs none.
import { register } from "node:module";

register("data:text/javascript," + encodeURIComponent(`
export async function load(url, context, next) {
  if (url.endsWith(".css")) return { format: "module", source: "", shortCircuit: true };
  return next(url, context);
}`));
