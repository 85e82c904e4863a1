"""The AWS Bedrock AgentCore plugin: AgentCore serves an agent (`serve_ag_ui(agent)`,
`AGUIApp.entrypoint`) by calling its `run(input)` for both transports, SSE on
`/invocations` and the WebSocket on `/ws`. The agent is what is instrumented, with its
own framework's adapter (or as a function returning events); the app is refused, naming
that line: as an ASGI app it would otherwise be taken for an agent's run function."""

from moca_agui.adapter import Adapter

ADAPTER = Adapter(
    "moca_agui.adapters.agentcore_plugin",
    "an agent served by AWS Bedrock AgentCore (bedrock-agentcore[ag-ui]): the agent, "
    "through its own framework's adapter",
    one_line="serve_ag_ui(moca_agui.instrument(agent)), or "
    "app.entrypoint(moca_agui.instrument(agent)) on an AGUIApp",
    extra="agentcore",
    refuses={"bedrock_agentcore.runtime.ag_ui:AGUIApp": "the AGUIApp"},
)
