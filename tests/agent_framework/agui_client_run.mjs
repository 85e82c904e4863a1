// One run of a real @ag-ui/client HttpAgent against an AG-UI endpoint; prints what the
// client holds afterwards: its messages and the moca.citations events it received.
// node agui_client_run.mjs URL QUESTION   (with @ag-ui/client resolvable from the cwd)
import { HttpAgent } from "@ag-ui/client";

const [url, question] = process.argv.slice(2);
const agent = new HttpAgent({ url });
agent.addMessage({ id: "user-1", role: "user", content: question });
const citations = [];
const order = [];
await agent.runAgent({}, {
  onEvent: ({ event }) => { order.push(event.type); },
  onCustomEvent: ({ event }) => {
    if (event.name === "moca.citations") citations.push(event.value);
  },
});
console.log(JSON.stringify({ messages: agent.messages, citations, order }));
