"""Citing AG-UI adapters for Pydantic AI: raw tool results in, `moca.citations` events out.

An instrumented adapter is a subclass of the user's `AGUIAdapter` (class or instance)
that overrides one method, `transform_stream`, which both `dispatch_request` and
`run_stream` go through. Per run it makes a `CitationRun`, feeds it each tool's raw
return value from the Pydantic AI events going in, and lets `moca_agui.cite` place the
events in the AG-UI events coming out. The event stream itself is never built or
copied here, so its fields may change between minor versions without breaking this.
"""

from __future__ import annotations

import dataclasses
import logging
import types
from collections.abc import AsyncIterator, Mapping
from functools import partial
from typing import Any, ClassVar, TypeVar, cast

from pydantic_ai.messages import FunctionToolResultEvent, ToolReturnPart
from pydantic_ai.ui.ag_ui import AGUIAdapter

from moca_agui import CitationOptions, CitationRun, cite, tap

__all__ = ["CitingAdapter", "instrumented"]

logger = logging.getLogger("moca_agui")

T = TypeVar("T")


class CitingAdapter(AGUIAdapter[Any, Any]):
    """An `AGUIAdapter` whose runs send one `moca.citations` event per assistant message.

    Made by `moca_agui.instrument(AGUIAdapter)`, which binds the options; it adds no
    dataclass field, so `from_request`, `dispatch_request` and the constructor take
    exactly what the parent takes.
    """

    moca_options: ClassVar[CitationOptions] = CitationOptions()

    def transform_stream(self, stream: AsyncIterator[Any], *args: Any, **kwargs: Any) -> Any:
        """The parent's AG-UI events, plus the run's `moca.citations` events."""
        run = CitationRun(self.moca_options)
        run.reads_tool_call_results = False  # each tool's raw value is captured instead
        events = super().transform_stream(tap(stream, partial(_capture, run)), *args, **kwargs)
        return cite(events, run=run)


def _capture(run: CitationRun, event: object) -> None:
    """Capture a successful tool return: its value, or a record in its `metadata`."""
    if not isinstance(event, FunctionToolResultEvent):
        return
    part = event.part
    if not isinstance(part, ToolReturnPart) or getattr(part, "outcome", "success") != "success":
        return  # a retry prompt or a failed call: the Reader answered nothing to cite
    metadata = part.metadata
    result = part if isinstance(metadata, Mapping) and "moca_citation" in metadata else part.content
    run.capture(part.tool_name, result)


def instrumented(target: T, options: CitationOptions) -> T:
    """A citing copy of an `AGUIAdapter` subclass or instance, with `options`."""
    if isinstance(target, type):
        return cast(T, _citing_class(target, options))
    adapter = cast(AGUIAdapter[Any, Any], target)
    citing = _citing_class(type(adapter), options)
    fields = {f.name: getattr(adapter, f.name) for f in dataclasses.fields(adapter) if f.init}
    return cast(T, citing(**fields))


def _citing_class(adapter: type[Any], options: CitationOptions) -> type[CitingAdapter]:
    plain = vars(adapter).get("_moca_plain", adapter)  # a class made here: start over
    bases: tuple[Any, ...]
    if issubclass(plain, CitingAdapter):  # a subclass of a citing class: only options change
        name, bases = plain.__name__, (plain,)
    elif plain.__parameters__:  # e.g. AGUIAdapter itself: stays subscriptable
        name, bases = f"Citing{plain.__name__}", (CitingAdapter, plain[plain.__parameters__])
    else:
        name, bases = f"Citing{plain.__name__}", (CitingAdapter, plain)

    def body(namespace: dict[str, Any]) -> None:
        namespace.update(
            __module__=__name__, __qualname__=name, moca_options=options, _moca_plain=plain
        )

    return cast(type[CitingAdapter], types.new_class(name, bases, exec_body=body))
