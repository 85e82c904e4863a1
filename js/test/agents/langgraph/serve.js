// LangGraph's local API server (@langchain/langgraph-api) serving ./graph.js on 127.0.0.1,
// any free port, its files in the directory argv[2]; prints its URL. A process of its own:
// the server's run queue polls until the process ends.
process.env.LOG_LEVEL ??= "error"; // its request log, read when it loads
const { startServer } = await import("@langchain/langgraph-api/server");

const graph = new URL("./graph.js", import.meta.url).pathname;
const { host } = await startServer({
  port: 0, nWorkers: 1, host: "127.0.0.1",
  cwd: process.argv[2],
  graphs: { agent: `${graph}:graph` },
});
console.error(`langgraph: http://${host}`);
