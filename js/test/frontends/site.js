// The pages the browser tests open, served on 127.0.0.1 as a user's app serves them: the
// README's CopilotKit page with CopilotKit's runtime (the README's server snippet) under
// /api/copilotkit, and an assistant-ui page whose HttpAgent posts to /agent, passed on to
// the AG-UI service. Everything the page loads comes from this one origin.
import { createServer } from "node:http";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Readable } from "node:stream";

import { build } from "esbuild";

// CopilotKit's runtime reports usage to CopilotKit unless told not to: nothing leaves 127.0.0.1
process.env.COPILOTKIT_TELEMETRY_DISABLED = "true";

const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const HERE = new URL(".", import.meta.url).pathname;

/** The README's snippet `name` (in a ```lang block), `edit`ed, as module text. */
export function readmeSnippet(name, edit = (code) => code) {
  const match = new RegExp(`<!-- snippet: ${name} -->\\n\`\`\`\\w+\\n([^]*?)\`\`\`\\n`).exec(README);
  if (!match) throw new Error(`no snippet ${name} in js/README.md`);
  return edit(match[1]);
}

/** The README's runtime snippet as a module exporting its listener, its agent at `agentUrl`. */
async function runtimeListener(agentUrl) {
  const code = readmeSnippet("copilotkit-runtime", (text) => {
    for (const part of ['"http://127.0.0.1:8000/"', "createServer(listener).listen(3000);"]) {
      if (!text.includes(part)) throw new Error(`the runtime snippet lost ${part}`);
    }
    return text.replace('"http://127.0.0.1:8000/"', JSON.stringify(agentUrl))
      .replace("createServer(listener).listen(3000);", "export { listener };");
  });
  const dir = mkdtempSync(`${HERE}.runtime-`);
  writeFileSync(`${dir}/runtime.mjs`, code);
  try {
    return (await import(`${dir}/runtime.mjs`)).listener;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Each page's bundle (JS and CSS), built once from pages/*.jsx with the README snippets. */
let bundles;
async function pageBundles() {
  bundles ??= (async () => {
    const dir = mkdtempSync(`${HERE}.pages-`);
    writeFileSync(`${dir}/copilotkit-snippet.jsx`, readmeSnippet("copilotkit"));
    writeFileSync(`${dir}/assistant-ui-snippet.jsx`, readmeSnippet("assistant-ui"));
    try {
      const result = await build({
        entryPoints: { copilotkit: `${HERE}pages/copilotkit.jsx`, "assistant-ui": `${HERE}pages/assistant-ui.jsx` },
        alias: { "copilotkit-snippet": `${dir}/copilotkit-snippet.jsx`, "assistant-ui-snippet": `${dir}/assistant-ui-snippet.jsx` },
        bundle: true, format: "esm", jsx: "automatic", write: false, outdir: "/", logLevel: "error",
        define: { "process.env.NODE_ENV": '"production"' },
        loader: { ".woff2": "empty", ".woff": "empty", ".ttf": "empty" }, // KaTeX's fonts (CopilotKit's math): none
      });
      return new Map(result.outputFiles.map((file) => [file.path, file.text]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  })();
  return bundles;
}

const PAGE = (name) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>moca-agui in ${name}</title>
<link rel="stylesheet" href="/${name}.css"></head>
<body><main id="root"></main><script type="module" src="/${name}.js"></script></body></html>`;

/** The whole body of `request`. */
async function bodyOf(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const TYPES = { js: "text/javascript", css: "text/css", html: "text/html" };

/** Pass `request` on to `url` and its answer back, streamed. */
async function passOn(request, response, url) {
  const body = await bodyOf(request);
  const answer = await fetch(url, { method: "POST", body, headers: { "content-type": "application/json", accept: "text/event-stream" } });
  response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "text/plain" });
  Readable.fromWeb(answer.body).pipe(response);
}

/** Serve the pages, CopilotKit's runtime and /agent for the AG-UI service at `agentUrl`. */
export async function startSite(agentUrl) {
  const [files, listener] = await Promise.all([pageBundles(), runtimeListener(agentUrl)]);
  const server = createServer((request, response) => {
    const path = new URL(request.url, "http://localhost").pathname;
    if (path.startsWith("/api/copilotkit")) return listener(request, response);
    if (path === "/agent" && request.method === "POST") {
      return passOn(request, response, agentUrl).catch((error) => response.destroy(error));
    }
    if (path === "/favicon.ico") return response.writeHead(204).end();
    const page = /^\/([\w-]+)\.html$/.exec(path);
    const file = page ? PAGE(page[1]) : files.get(path);
    if (file === undefined) return response.writeHead(404).end();
    response.writeHead(200, { "content-type": TYPES[path.split(".").pop()] }).end(file);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return { url, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }) };
}

/** An AG-UI service on 127.0.0.1 that answers every run with `answer` and `citations`. */
export async function startScripted(answer, citations) {
  const server = createServer(async (request, response) => {
    const input = JSON.parse((await bodyOf(request)).toString() || "{}");
    const run = { threadId: input.threadId ?? "t1", runId: input.runId ?? "r1" };
    const messageId = `answer-${run.runId}`;
    const events = [
      { type: "RUN_STARTED", ...run },
      { type: "TEXT_MESSAGE_START", messageId, role: "assistant" },
      { type: "TEXT_MESSAGE_CONTENT", messageId, delta: answer },
      { type: "TEXT_MESSAGE_END", messageId },
      { type: "CUSTOM", name: "moca.citations", value: { version: 1, messageId, citations } },
      { type: "RUN_FINISHED", ...run },
    ];
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.end(events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join(""));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}
