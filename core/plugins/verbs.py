"""The user's verbs the plugins answer: `instrument` (the one line that turns citations
on, through the adapters), `uninstrument`, and `numbered` (Reader tools that show the
model each source's marker)."""

from __future__ import annotations

import contextlib
from typing import TypeVar, Unpack, cast

from ..options import CitationOptions, OptionKeywords
from .declared import Adapter
from .manager import get_plugin_manager

__all__ = ["ORIGINAL_ATTRIBUTE", "instrument", "numbered", "uninstrument"]

T = TypeVar("T")

#: Where an instrumented object keeps the one it was made from.
ORIGINAL_ATTRIBUTE = "__moca_agui_original__"


def instrument(target: T, **options: Unpack[OptionKeywords]) -> T:
    """Return `target` sending `moca.citations` events, through the adapter that knows it.

    Idempotent: instrumenting an instrumented object instruments its original again
    with the new options. Reversible: `uninstrument` gives the original back.
    Raises TypeError when no registered adapter handles `target`.
    """
    citation_options = CitationOptions.from_kwargs(**options)
    original = uninstrument(target)
    manager = get_plugin_manager()
    result = manager.hook.moca_instrument(target=original, options=citation_options)
    if result is None:
        adapters = sorted(impl.plugin_name for impl in manager.hook.moca_instrument.get_hookimpls())
        hints = "".join(f"\n- {hint}" for hint in manager.hook.moca_install_hint() if hint)
        raise TypeError(
            f"moca_agui cannot instrument {type(original).__module__}."
            f"{type(original).__qualname__}: no registered adapter handles it "
            f"(registered: {', '.join(adapters) or 'none'}). The adapters instrument:{hints}"
        )
    # An async generator takes no attribute: there is nothing to give back then.
    with contextlib.suppress(AttributeError, TypeError):
        setattr(result, ORIGINAL_ATTRIBUTE, original)
    return cast(T, result)


def uninstrument(target: T) -> T:
    """The object `instrument` was given, or `target` itself if it is not instrumented."""
    # Only `target`'s own attribute: an instance of an instrumented class inherits the
    # class's, but it is not itself what `instrument` returned.
    return cast(T, getattr(target, "__dict__", {}).get(ORIGINAL_ATTRIBUTE, target))


def numbered(target: T, *, name: str | None = None) -> T:
    """`target` (a Reader tool, toolset or function, or a list of them) showing the model
    each source's run-wide marker beside it, e.g. `tools = moca_agui.numbered(tools)`.

    `name` is the tool name a plain function is known by (default: its `__name__`).
    Raises TypeError for something no adapter can number.
    """
    if isinstance(target, list | tuple):
        return cast(T, type(target)(numbered(item, name=name) for item in target))
    manager = get_plugin_manager()
    made = manager.hook.moca_numbered(target=target, name=name)
    if made is None:
        impls = manager.hook.moca_numbered.get_hookimpls()
        adapters = sorted(
            i.plugin_name
            for i in impls
            if i.plugin_name != "moca_agui.builtin"
            and (not isinstance(i.plugin, Adapter) or i.plugin.tools)  # declares what it numbers
        )
        raise TypeError(
            f"moca_agui cannot number the results of {type(target).__qualname__}: pass a "
            "Reader tool function, or a Reader tool or toolset of a framework whose "
            f"adapter is installed (adapters that number tools: {', '.join(adapters)})"
        )
    return cast(T, made)
