"""`Adapter`: what one framework's adapter claims, refuses and needs, declared once.

Its plugin's hooks (`moca_instrument`, `moca_numbered`, `moca_install_hint`,
`moca_calls_in_model_order`) are made from the declaration, so every adapter claims,
refuses and names its install in the same words. Classes are named as `"module:Class"`
and found in `sys.modules` only: the plugin loads in every process, its framework
installed or not, and imports nothing of it.
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


@dataclass(frozen=True)
class Adapter:
    """One framework's adapter, as its plugin module declares it, and the plugin itself:
    its entry point names the object (`"moca_agui.adapters.langgraph_plugin:ADAPTER"`)::

        ADAPTER = Adapter(
            "moca_agui.adapters.langgraph", "a LangGraph `LangGraphAgent` (ag-ui-langgraph)",
            extra="langgraph", classes=False, refuses={"langgraph.pregel:Pregel": "the graph"},
            one_line="agent = moca_agui.instrument(LangGraphAgent(name=..., graph=graph))",
            instances=("ag_ui_langgraph:LangGraphAgent",), tools=("langchain_core.tools:BaseTool",),
        )

    `module` is the adapter's module that imports the framework: its `citing(target,
    options)` makes the citing object, its `numbered_tool(tool[, name])` a numbered tool.
    """

    #: The adapter's module, imported only for an object of its framework.
    module: str
    #: What it instruments, as the install hint and every refusal name it.
    serves: str
    #: The line a user writes, named in every refusal.
    one_line: str = ""
    #: The extra that brings the framework (None: nothing to install).
    extra: str | None = None
    #: `"module:Class"`: the classes whose instances (and, with `classes`, subclasses) it
    #: instruments.
    instances: tuple[str, ...] = ()
    #: Whether a class itself is instrumented (a citing subclass); else it is refused.
    classes: bool = True
    #: `"module:Class"` -> what such an object is, for the refusal ("the graph"); instances
    #: and subclasses alike.
    refuses: Mapping[str, str] = field(default_factory=dict)
    #: `"module:Class"`: the tools `numbered_tool` numbers.
    tools: tuple[str, ...] = ()
    #: The modules whose ASGI endpoints (functions or classes) send a model's parallel
    #: calls in an order of their own, not the model's: a request one of them answers is
    #: cited with no default marker that depends on the model's order
    #: (`moca_calls_in_model_order`).
    unordered_endpoints: tuple[str, ...] = ()

    def claim(self, target: object) -> Callable[[Any, CitationOptions], object] | None:
        """What makes `target` cite, or None if it is not this adapter's.

        Raises TypeError, naming `one_line`, for an object of the framework that is the
        wrong thing to instrument.
        """
        for name in self.instances:
            if instance_of(target, name) or (self.classes and subclass_of(target, name)):
                return self._function("citing")
            if subclass_of(target, name):
                raise TypeError(
                    f"moca_agui instruments {self.serves} instance, not its class: {self.one_line}"
                )
        for name, what in self.refuses.items():
            if instance_of(target, name) or subclass_of(target, name):
                raise TypeError(f"moca_agui instruments {self.serves}, not {what}: {self.one_line}")
        return None

    @hookimpl
    def moca_instrument(self, target: object, options: CitationOptions) -> object | None:
        make = self.claim(target)
        if make is None:
            return None
        made: object = make(target, options)
        return made

    @hookimpl
    def moca_numbered(self, target: object, name: str | None) -> object | None:
        if not any(instance_of(target, tool) for tool in self.tools):
            return None
        number = self._function("numbered_tool")
        return number(target) if name is None else number(target, name)

    @hookimpl
    def moca_calls_in_model_order(self, scope: Mapping[str, Any], endpoint: object) -> bool | None:
        unordered = getattr(endpoint, "__module__", None) in self.unordered_endpoints
        return False if unordered else None

    @hookimpl
    def moca_install_hint(self) -> str:
        if self.extra is None:
            return f"{self.serves} (no extra needed)"
        return f"{self.serves}: {pip_install(self.extra)}"

    def _function(self, name: str) -> Callable[..., object]:
        """The adapter module's function `name`, imported now (the framework is)."""
        found: Callable[..., object] = getattr(importlib.import_module(self.module), name)
        return found
