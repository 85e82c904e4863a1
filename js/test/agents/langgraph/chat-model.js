// The LangGraph.js graph's offline model: a LangChain chat model scripted as ../model.js is
// (a Reader search for the question, then an answer citing what came back), streamed.
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessageChunk } from "@langchain/core/messages";
import { ChatGenerationChunk } from "@langchain/core/outputs";

import { SCRIPT, answerText, nodeRefs, toJson, uniqueId } from "../model.js";

export class ScriptedChatModel extends BaseChatModel {
  _llmType() { return "moca-agui-scripted"; }

  bindTools(tools) {
    return this.withConfig({ tools: tools.map((tool) => tool.name) });
  }

  async _generate(messages, options) {
    const chunks = [];
    for await (const chunk of this._streamResponseChunks(messages, options)) chunks.push(chunk);
    const message = chunks.map((chunk) => chunk.message).reduce((a, b) => a.concat(b));
    return { generations: [{ message, text: message.text }] };
  }

  async *_streamResponseChunks(messages, options, runManager) {
    const lastUser = messages.findLastIndex((message) => message.type === "human");
    const script = SCRIPT[messages[lastUser].text];
    if (!script) throw new Error(`no script for ${messages[lastUser].text}`);
    if (!messages.slice(lastUser + 1).some((message) => message.type === "tool")) {
      const name = options.tools?.find((tool) => tool.endsWith("moca_search"));
      const args = JSON.stringify(script.search);
      const id = uniqueId("call");
      yield new ChatGenerationChunk({
        text: "",
        message: new AIMessageChunk({ content: "", tool_call_chunks: [{ id, name, args, index: 0, type: "tool_call_chunk" }] }),
      });
      return;
    }
    const received = [];
    for (const message of messages) {
      if (message.type !== "tool") continue;
      for (const ref of nodeRefs(toJson(message.text))) if (!received.includes(ref)) received.push(ref);
    }
    for (const word of answerText(script.answer, received).match(/[^ ]+ */g)) {
      const chunk = new ChatGenerationChunk({ text: word, message: new AIMessageChunk({ content: word }) });
      yield chunk;
      await runManager?.handleLLMNewToken(word, undefined, undefined, undefined, undefined, { chunk });
    }
  }
}
