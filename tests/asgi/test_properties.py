"""For generated streams (several runs, chunks, reopened ids, other roles, events between,
RUN_ERROR), cut into body chunks anywhere: the middleware sends what `cite` makes of the
same events."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from moca_agui.asgi import CitationMiddleware
from streams import generated_run, generated_step

from .apps import chunked, cited_body, encoded, post, timeless


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(generated_step, max_size=12), st.data())
def test_the_middleware_sends_what_cite_makes(steps: list[Any], data: st.DataObject) -> None:
    events = generated_run(steps)
    body = encoded(events)
    cuts = sorted(data.draw(st.sets(st.integers(1, len(body) - 1), max_size=6)))
    chunks = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    sent = asyncio.run(post(CitationMiddleware(chunked(chunks)))).content
    assert timeless(sent) == timeless(asyncio.run(cited_body(events)))
