"""`numbered`: Reader tools whose results show the model each source's run-wide marker.

A numbered tool asks the run it is called in (the run context, `moca_agui.context`, which
`cite`, the middleware and the adapters enter through `CitationStream.running` while the
agent runs) to number its result as it is
produced, and returns what the model reads: the result's sources, each beside its
marker. The run captures the result itself, exactly as the Reader produced it, and its
marker table is those numbers, so `[n]` in the answer names what the model was shown as
`[n]`, whatever the schedule.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any

from ..context import ACTIVE_RUN, NumberingRun

__all__ = ["numbered_function", "numbered_result"]

logger = logging.getLogger("moca_agui")


def numbered_result(tool_name: str, result: object, run: NumberingRun | None = None) -> object:
    """What the model reads of one result of `tool_name`: numbered by `run` (by default the
    run of this context), or `result` itself outside a run (logged), for a tool that is not
    a Reader, or on error."""
    run = run or ACTIVE_RUN.get()
    if run is None:
        logger.warning(
            "moca_agui: %s ran outside a citing run: its result is shown without numbers",
            tool_name,
        )
        return result
    try:
        return run.numbered(tool_name, result)
    except Exception:
        logger.exception("moca_agui: a result of %s is shown without numbers", tool_name)
        return result


def numbered_function(function: Callable[..., Any], name: str | None = None) -> Callable[..., Any]:
    """A function with `function`'s signature whose result is numbered (sync or async)."""
    tool_name = name or getattr(function, "__name__", "")
    if not tool_name:
        raise TypeError("pass name=<the tool's name>: this callable has no __name__")
    if inspect.iscoroutinefunction(function):

        @functools.wraps(function)
        async def numbered_async(*args: Any, **kwargs: Any) -> Any:
            return numbered_result(tool_name, await function(*args, **kwargs))

        return numbered_async

    @functools.wraps(function)
    def numbered_sync(*args: Any, **kwargs: Any) -> Any:
        return numbered_result(tool_name, function(*args, **kwargs))

    return numbered_sync
