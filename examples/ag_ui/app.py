"""A bare AG-UI SDK service with MOCA citations: the one-line diff of the docs, runnable.

    python examples/ag_ui/app.py   # AG-UI endpoint: POST http://127.0.0.1:8000/
    python examples/ag_ui/app.py --question "Do I need to register my hives?"

`--question` prints the event stream of one question as JSON lines, as `moca-agui demo
--question` does. It runs offline: `run_agent` is your agent (any async iterable of
`ag_ui.core` events); here it is the demo's scripted model calling the demo Reader's
tools. The one line that turns citations on is marked below.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator

try:  # what its page's install line brings: pip install -e '.[demo]'
    from ag_ui.core import BaseEvent, RunAgentInput
    from ag_ui.encoder import EventEncoder
    from fastapi import FastAPI
    from fastapi.responses import StreamingResponse
except ImportError as exc:  # a module missing, or a package that says so on import
    from moca_agui.demo.server import missing_extras

    missing_extras("demo", exc)

import moca_agui
from moca_agui.demo.frameworks import ag_ui as demo_agent
from moca_agui.demo.reader import DemoReader
from moca_agui.demo.server import example_main

reader = DemoReader()


def run_agent(input_data: RunAgentInput) -> AsyncIterator[BaseEvent]:
    """One run of your agent as `ag_ui.core` events: RUN_STARTED, the Reader tool calls with
    their TOOL_CALL_RESULT, the answer's TEXT_MESSAGE_*, RUN_FINISHED."""
    return demo_agent.run_agent(input_data, reader)


app = FastAPI(title="Apiary handbook (bare AG-UI SDK + moca-agui)")


@app.post("/")
async def endpoint(input_data: RunAgentInput) -> StreamingResponse:
    encoder = EventEncoder()
    events = moca_agui.cite(run_agent(input_data))  # the one line
    return StreamingResponse(
        (encoder.encode(e) async for e in events), media_type=encoder.get_content_type()
    )


if __name__ == "__main__":
    sys.exit(
        example_main(app, "A bare AG-UI SDK service with MOCA citations, offline.", extras="demo")
    )
