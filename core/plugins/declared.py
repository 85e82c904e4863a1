"""`Adapter`: what one framework's adapter claims, refuses and needs, declared once.

Its plugin's hooks (`moca_instrument`, `moca_numbered`, `moca_install_hint`) are made
from the declaration, so every adapter claims, refuses and names its install in the same
words. Classes are named as `"module:Class"` and found in `sys.modules` only: the plugin
loads in every process, its framework installed or not, and imports nothing of it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..options import CitationOptions
from .hookspecs import hookimpl
from .imported import instance_of, subclass_of
from .install import pip_install

__all__ = ["Adapter"]


@dataclass(frozen=True, kw_only=True)
class Adapter:
    """One framework's adapter, as its plugin module declares it::

        hooks = Adapter(
            serves="a LangGraph `LangGraphAgent` (ag-ui-langgraph)",
            extra="langgraph",
            one_line="agent = moca_agui.instrument(LangGraphAgent(name=..., graph=graph))",
            instruments={"ag_ui_langgraph:LangGraphAgent": "moca_agui.adapters.langgraph:citing"},
            classes=False,
            refuses={"langgraph.pregel:Pregel": "the graph"},
        )
        moca_instrument, moca_numbered, moca_install_hint = hooks.hookimpls()
    """

    #: What it instruments, as the install hint and every refusal name it.
    serves: str
    #: The extra that brings the framework (None: nothing to install).
    extra: str | None
    #: The line a user writes, named in every refusal.
    one_line: str
    #: `"module:Class"` -> `"module:function"` called with `(target, options)` for an
    #: instance (or, with `classes`, a subclass) of that class; it returns the citing object.
    instruments: Mapping[str, str] = field(default_factory=dict)
    #: Whether a class itself is instrumented (a citing subclass); else it is refused.
    classes: bool = True
    #: `"module:Class"` -> what such an object is, for the refusal ("the graph"); instances
    #: and subclasses alike.
    refuses: Mapping[str, str] = field(default_factory=dict)
    #: `"module:Class"` -> `"module:function"` called with `(target)` to number a tool, or
    #: `(target, name)` when the caller named the tool.
    numbers: Mapping[str, str] = field(default_factory=dict)

    def claim(self, target: object) -> Callable[[Any, CitationOptions], object] | None:
        """What makes `target` cite, or None if it is not this adapter's.

        Raises TypeError, naming `one_line`, for an object of the framework that is the
        wrong thing to instrument.
        """
        for name, made_by in self.instruments.items():
            if instance_of(target, name) or (self.classes and subclass_of(target, name)):
                return _function(made_by)
            if subclass_of(target, name):
                raise TypeError(
                    f"moca_agui instruments {self.serves} instance, not its class: "
                    f"{self.one_line}"
                )
        for name, what in self.refuses.items():
            if instance_of(target, name) or subclass_of(target, name):
                raise TypeError(f"moca_agui instruments {self.serves}, not {what}: {self.one_line}")
        return None

    @hookimpl
    def moca_instrument(self, target: object, options: CitationOptions) -> object | None:
        make = self.claim(target)
        return None if make is None else make(target, options)

    @hookimpl
    def moca_numbered(self, target: object, name: str | None) -> object | None:
        for tool, made_by in self.numbers.items():
            if instance_of(target, tool):
                number = _function(made_by)
                return number(target) if name is None else number(target, name)
        return None

    @hookimpl
    def moca_install_hint(self) -> str:
        if self.extra is None:
            return f"{self.serves} (no extra needed)"
        return f"{self.serves}: {pip_install(self.extra)}"

    def hookimpls(self) -> tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any]]:
        """The hooks, for the plugin module to hold as its own names."""
        return self.moca_instrument, self.moca_numbered, self.moca_install_hint


def _function(path: str) -> Callable[..., Any]:
    """The function `"module:name"` names, imported now (the framework is imported)."""
    module, _, name = path.partition(":")
    found: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return found
