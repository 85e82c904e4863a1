"""The citing variants every adapter makes: a subclass, a copy, a wrapped factory."""

from __future__ import annotations

import asyncio
from typing import Generic, TypeVar

import moca_agui
from moca_agui import CitationOptions
from moca_agui.adapter import citing_class, citing_copy, citing_factory, options_of

T = TypeVar("T")
QUIET = CitationOptions(include_text=False)


class Agent(Generic[T]):
    def __init__(self, name: str) -> None:
        self.name = name

    def run(self) -> str:
        return f"{self.name} ran"


class Citing(Agent[T]):
    """An adapter's mixin: a subclass of the framework's class, overriding its run."""

    def run(self) -> str:
        return f"{super().run()} and cited with {options_of(self).include_text}"


class Tagged(Agent[T]):
    def run(self) -> str:
        return f"tagged {super().run()}"


def test_a_citing_class_mixes_in_first_keeps_the_original_and_stays_generic():
    cited = citing_class(Agent, Citing, QUIET)
    assert cited.__mro__[1] is Citing and issubclass(cited, Agent)
    assert cited.__name__ == "CitingAgent" and Agent.__mro__ == (Agent, Generic, object)
    assert cited("a").run() == "a ran and cited with False"
    assert options_of(cited) is QUIET and moca_agui.uninstrument(cited) is Agent
    assert cited[int]("b").run() == "b ran and cited with False"  # still subscriptable


def test_a_citing_class_made_again_changes_only_the_options():
    cited = citing_class(Agent, Citing, QUIET)
    again = citing_class(cited, Citing, CitationOptions())
    assert again.__mro__.count(Citing) == 1 and again.__mro__[1] is Citing
    assert moca_agui.uninstrument(again) is Agent and options_of(again).include_text

    class Mine(cited):  # type: ignore[valid-type, misc]
        pass

    mine = citing_class(Mine, Citing, QUIET)
    assert mine.__bases__ == (Mine,) and moca_agui.uninstrument(mine) is Mine


def test_a_citing_copy_leaves_the_original_and_shares_one_class_per_class():
    plain = Tagged[int]("a")
    first, second = citing_copy(plain, Citing, QUIET), citing_copy(plain, Citing, CitationOptions())
    assert type(plain) is Tagged and plain.run() == "tagged a ran"
    assert type(first) is type(second) and type(first).__mro__[1:3] == (Citing, Tagged)
    assert first.run() == "tagged a ran and cited with False"
    assert second.run() == "tagged a ran and cited with True"
    assert moca_agui.uninstrument(first) is plain and first is not plain
    assert type(citing_copy(Agent("b"), Citing, QUIET)) is Citing  # the mixin is the class


def test_options_of_a_plain_object_are_the_defaults():
    assert options_of(object()) == CitationOptions()


def test_a_citing_factory_keeps_sync_sync_and_async_async():
    def make() -> Agent[int]:
        return Agent("sync")

    async def make_async() -> Agent[int]:
        return Agent("async")

    def make_awaitable():  # a plain function returning an awaitable
        return make_async()

    def cite(agent: Agent[int]) -> Agent[int]:
        return citing_copy(agent, Citing, QUIET)

    assert citing_factory(make, cite)().run() == "sync ran and cited with False"
    cited_async = citing_factory(make_async, cite)
    assert asyncio.iscoroutinefunction(cited_async) and cited_async.__name__ == "make_async"
    assert asyncio.run(cited_async()).run() == "async ran and cited with False"
    assert asyncio.run(citing_factory(make_awaitable, cite)()).name == "async"
