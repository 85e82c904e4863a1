// The README's assistant-ui snippet, as written, in a thread of assistant-ui's primitives
// (answers in Markdown through the snippet's MocaText), over an HttpAgent posting to /agent.
import { HttpAgent } from "@ag-ui/client";
import { AssistantRuntimeProvider, ComposerPrimitive, MessagePrimitive, ThreadPrimitive } from "@assistant-ui/react";
import { useAgUiRuntime } from "@assistant-ui/react-ag-ui";
import { createRoot } from "react-dom/client";

import "./assistant-ui.css";
import { MocaCitationsUI, MocaText } from "assistant-ui-snippet";

const agent = new HttpAgent({ url: "/agent" });

function UserMessage() {
  return <MessagePrimitive.Root className="message user"><MessagePrimitive.Parts /></MessagePrimitive.Root>;
}

function AssistantMessage() {
  return (
    <MessagePrimitive.Root className="message assistant">
      <MessagePrimitive.Parts components={{ Text: MocaText }} />
    </MessagePrimitive.Root>
  );
}

function Chat() {
  const runtime = useAgUiRuntime({ agent });
  return (
    <AssistantRuntimeProvider runtime={runtime}>
      <MocaCitationsUI />
      <ThreadPrimitive.Root className="thread">
        <ThreadPrimitive.Viewport className="viewport">
          <ThreadPrimitive.Messages components={{ UserMessage, AssistantMessage }} />
        </ThreadPrimitive.Viewport>
        <ComposerPrimitive.Root className="composer">
          <ComposerPrimitive.Input aria-label="Your question" placeholder="Ask a question" />
          <ComposerPrimitive.Send>Send</ComposerPrimitive.Send>
        </ComposerPrimitive.Root>
      </ThreadPrimitive.Root>
    </AssistantRuntimeProvider>
  );
}

createRoot(document.getElementById("root")).render(<Chat />);
