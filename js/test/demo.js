// Start `moca-agui demo` on 127.0.0.1 for a test: the real Python service, over real HTTP.
// The Python environment is the one on PATH (nox puts the session's first), or $MOCA_AGUI_PYTHON.
import { execFileSync, spawn } from "node:child_process";
import { dirname, join } from "node:path";

const PYTHON = process.env.MOCA_AGUI_PYTHON || "python";
const BIN = dirname(execFileSync(PYTHON, ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim());

/**
 * The demo's --framework names to test: $MOCA_AGUI_DEMO_FRAMEWORKS (comma-separated), for a
 * framework kept out of [all] and tested in its own environment; by default frameworksInAll().
 */
export function demoFrameworks() {
  const chosen = process.env.MOCA_AGUI_DEMO_FRAMEWORKS;
  return chosen ? chosen.split(",") : frameworksInAll();
}

/** The demo's --framework names whose extra is part of moca-agui[all], as installed. */
export function frameworksInAll() {
  const script = `
import json, re
from importlib.metadata import requires
from moca_agui.demo.server import FRAMEWORKS
(line,) = [r for r in requires("moca-agui") if re.search(r"extra == .all.", r)]
extras = set(re.search(r"\\[([^\\]]*)\\]", line).group(1).split(","))
print(json.dumps([name for name, (_, extra) in FRAMEWORKS.items() if set(extra.split(",")) <= extras]))
`;
  return JSON.parse(execFileSync(PYTHON, ["-c", script], { encoding: "utf8" }));
}

/**
 * `moca-agui demo --framework <framework> --port 0`; resolves once it prints the URL it
 * listens on (bound before it prints), to { url, stop }. Rejects with its output if it exits.
 */
export async function startDemo(framework) {
  const child = spawn(join(BIN, "moca-agui"), ["demo", "--framework", framework, "--port", "0"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const url = await new Promise((resolve, reject) => {
    const read = (chunk) => {
      output += chunk;
      const listening = /\(\S+\): (http:\/\/127\.0\.0\.1:\d+\/)/.exec(output);
      if (listening) resolve(listening[1]);
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.on("exit", (code) => reject(new Error(`moca-agui demo ${framework} exited ${code}:\n${output}`)));
  });
  const stop = () => new Promise((resolve) => {
    child.removeAllListeners("exit");
    child.on("exit", resolve);
    child.kill("SIGINT");
  });
  return { url, stop };
}
