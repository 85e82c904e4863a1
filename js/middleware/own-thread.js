// Whether the agent a middleware runs reads a thread of its own rather than the request's:
// a local Mastra agent with memory (as @ag-ui/mastra's MastraAgent holds it) sends its model
// the history its memory recalls, not `RunAgentInput.messages`. Duck-typed: no Mastra import.

/**
 * Null when `agent` shows no memory of its own (its model reads the request's thread), else
 * a Promise of whether it keeps one: its `agent.getMemory()` resolves to a memory (as
 * MastraAgent asks it, with its request context); a failing `getMemory` counts as one.
 * @param {unknown} agent @returns {Promise<boolean> | null}
 */
export function keepsOwnThread(agent) {
  const inner = agent !== null && typeof agent === "object" ? /** @type {any} */ (agent).agent : undefined;
  if (inner === null || typeof inner !== "object" || typeof inner.getMemory !== "function") return null;
  const requestContext = /** @type {any} */ (agent).requestContext;
  return Promise.resolve()
    .then(() => inner.getMemory({ requestContext }))
    .then((memory) => Boolean(memory), () => true);
}
