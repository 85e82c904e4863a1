"""The ASGI middleware over turns of one thread, as @ag-ui/client sends them: the whole
thread in each request body. The service behind it is a plain AG-UI endpoint whose
scripted agent plays each question's steps, calling its Reader tools (numbered or not)
while the middleware's run is active."""

from __future__ import annotations

from typing import Any

from thread_turns import Steps, follow_ups, numbered_over_three_turns

from moca_agui.asgi import CitationMiddleware

from .apps import scripted


def serve(steps: Steps, *, numbered: bool, **options: Any) -> Any:
    return CitationMiddleware(scripted(steps, numbered=numbered), **options)


async def test_numbered_tools_count_on_over_three_turns_and_a_source_read_again_keeps_its_number():
    await numbered_over_three_turns(serve)


async def test_follow_ups_cite_earlier_sources_only_with_the_record_lookup_gives_now():
    await follow_ups(serve)
