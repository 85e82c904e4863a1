"""`moca_agui.instrument` on Pydantic AI's `AGUIAdapter`: the class, an instance, the
`run_stream` path, the user's own subclasses, and what happens without the framework."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from ag_ui.core import BaseEvent, CustomEvent, EventType, RunAgentInput
from fastapi import FastAPI, Request
from fastapi.responses import Response
from pai_support import A, Call, Reader, agent, answer_ids, dispatch_app, post, scripted
from pydantic_ai.ui.ag_ui import AGUIAdapter, AGUIEventStream

import moca_agui
from moca_agui.adapters.pydantic_ai import CitingAdapter
from support import (
    assert_valid_stream,
    citation_events,
    import_error,
    python,
    ref,
    run_input,
    types,
)


def reader_agent() -> Any:
    model = scripted([[Call("moca_get_node", {"node_id": ref(A)})], [f"See {ref(A)}."]])
    return agent(model, *Reader(A).tools)


def run_stream_app(make_adapter: Any, the_agent: Any) -> FastAPI:
    """Pydantic AI's documented `run_stream` endpoint, with `make_adapter` building the adapter."""
    app = FastAPI()

    @app.post("/")
    async def run_agent(request: Request) -> Response:
        run_input = AGUIAdapter.build_run_input(await request.body())
        adapter = make_adapter(
            agent=the_agent, run_input=run_input, accept=request.headers.get("accept")
        )
        return adapter.streaming_response(adapter.run_stream())

    return app


def assert_one_citation_of_a(stream: list[dict[str, Any]]) -> None:
    assert_valid_stream(stream)
    assert types(stream)[-2:] == ["CUSTOM:moca.citations", "RUN_FINISHED"]
    [value] = citation_events(stream)
    assert value["messageId"] == answer_ids(stream)[0]
    assert value["citations"] == [{"record": A}]


# -- the class ------------------------------------------------------------------------


def test_instrumenting_the_class_is_idempotent_and_reversible():
    cited = moca_agui.instrument(AGUIAdapter)
    assert issubclass(cited, AGUIAdapter) and issubclass(cited, CitingAdapter)
    assert moca_agui.uninstrument(cited) is AGUIAdapter
    again = moca_agui.instrument(cited, include_text=False)
    assert moca_agui.uninstrument(again) is AGUIAdapter
    assert again.moca_agui_options.include_text is False
    assert [base for base in again.__mro__ if base is CitingAdapter] == [CitingAdapter]
    assert AGUIAdapter.__mro__[0] is AGUIAdapter and not issubclass(AGUIAdapter, CitingAdapter)


async def test_an_instrumented_class_instrumented_again_sends_one_event_with_the_new_options():
    twice = moca_agui.instrument(moca_agui.instrument(AGUIAdapter), include_text=False)
    stream = await post(dispatch_app(twice, reader_agent()), "q")
    assert_valid_stream(stream)
    [value] = citation_events(stream)
    assert value["citations"] == [{"record": {k: v for k, v in A.items() if k != "text"}}]


def test_the_instrumented_class_stays_subscriptable_like_the_original():
    cited = moca_agui.instrument(AGUIAdapter)
    assert issubclass(cited[None, str].__origin__, AGUIAdapter)  # type: ignore[index]


async def test_run_stream_with_the_instrumented_class():
    cited = moca_agui.instrument(AGUIAdapter)
    assert_one_citation_of_a(await post(run_stream_app(cited, reader_agent()), "q"))


# -- an instance ----------------------------------------------------------------------


def a_run_input() -> RunAgentInput:
    return AGUIAdapter.build_run_input(json.dumps(run_input("q")).encode())


def test_instrumenting_an_instance_keeps_every_field_and_is_reversible():
    plain = AGUIAdapter(agent=reader_agent(), run_input=a_run_input(), accept="text/event-stream")
    cited = moca_agui.instrument(plain, include_text=False)
    assert isinstance(cited, CitingAdapter) and type(plain) is AGUIAdapter
    for field in dataclasses.fields(plain):
        if field.init:
            assert getattr(cited, field.name) is getattr(plain, field.name), field.name
    assert moca_agui.uninstrument(cited) is plain
    again = moca_agui.instrument(cited)
    assert moca_agui.uninstrument(again) is plain and again.moca_agui_options.include_text is True


def test_an_instance_of_an_instrumented_class_instruments_as_an_instance():
    cited_class = moca_agui.instrument(AGUIAdapter)
    adapter = cited_class(agent=reader_agent(), run_input=a_run_input())
    assert moca_agui.uninstrument(adapter) is adapter  # made citing, not instrumented
    again = moca_agui.instrument(adapter, include_text=False)
    assert isinstance(again, CitingAdapter) and again.moca_agui_options.include_text is False
    assert again.agent is adapter.agent and again.run_input is adapter.run_input
    assert type(again).__mro__[1:] == cited_class.__mro__[1:]  # made from AGUIAdapter again


async def test_run_stream_with_an_instrumented_instance():
    def make(**fields: Any) -> Any:
        return moca_agui.instrument(AGUIAdapter(**fields))

    assert_one_citation_of_a(await post(run_stream_app(make, reader_agent()), "q"))


# -- the user's own subclasses --------------------------------------------------------


@dataclass
class GreetingEventStream(AGUIEventStream[Any, Any]):
    """A user's event stream with an init field Pydantic AI's does not have."""

    greeting: str = "hello"

    async def before_stream(self) -> AsyncIterator[BaseEvent]:
        async for event in super().before_stream():
            yield event
        yield CustomEvent(type=EventType.CUSTOM, name="app.greeting", value=self.greeting)


@dataclass
class GreetingAdapter(AGUIAdapter[Any, Any]):
    """A user's adapter with its own field and its own event stream."""

    greeting: str = "hello"

    def build_event_stream(self) -> Any:
        stream = super().build_event_stream()
        fields = {f.name: getattr(stream, f.name) for f in dataclasses.fields(stream) if f.init}
        fields.pop("thread_id"), fields.pop("run_id")  # taken from the run input
        return GreetingEventStream(**fields, greeting=self.greeting)


async def test_a_users_subclass_keeps_its_fields_and_its_event_stream():
    cited = moca_agui.instrument(GreetingAdapter)
    assert issubclass(cited, GreetingAdapter)
    stream = await post(dispatch_app(cited, reader_agent(), greeting="bonjour"), "q")
    assert_one_citation_of_a(stream)
    assert types(stream)[:2] == ["RUN_STARTED", "CUSTOM:app.greeting"]
    assert stream[1]["value"] == "bonjour"


async def test_an_instrumented_subclass_streams_what_the_subclass_streams_plus_citations():
    plain = await post(dispatch_app(GreetingAdapter, reader_agent()), "q")
    stream = await post(dispatch_app(moca_agui.instrument(GreetingAdapter), reader_agent()), "q")
    assert types(stream) == [*types(plain)[:-1], "CUSTOM:moca.citations", "RUN_FINISHED"]


# -- what is not an AGUIAdapter -------------------------------------------------------


def test_instrumenting_the_agent_says_to_instrument_the_adapter_instead():
    with pytest.raises(TypeError, match=r"AGUIAdapter = moca_agui.instrument\(AGUIAdapter\)"):
        moca_agui.instrument(reader_agent())


def test_the_plugin_imports_without_pydantic_ai_and_claims_nothing():
    done = python(
        """
        import sys
        import moca_agui
        from moca_agui.adapters.pydantic_ai_plugin import ADAPTER as pydantic_ai_plugin
        assert not any(name.split(".")[0] == "pydantic_ai" for name in sys.modules)
        options = moca_agui.CitationOptions()
        assert pydantic_ai_plugin.moca_instrument(target=object(), options=options) is None
        assert pydantic_ai_plugin.moca_instrument(target=type, options=options) is None
        assert not any(name.split(".")[0] == "pydantic_ai" for name in sys.modules)
        print("ok")
        """
    )
    assert done.stdout.strip() == "ok", done.stderr


def test_without_pydantic_ai_the_adapter_names_the_extra_to_install():
    done = import_error("moca_agui.adapters.pydantic_ai", missing="pydantic_ai")
    assert "pip install 'moca-agui[pydantic-ai]'" in done.stdout, done.stderr
    assert "pip install -e '.[pydantic-ai]' in a clone of moca-agui" in done.stdout
