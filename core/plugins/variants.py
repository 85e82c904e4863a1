"""Citing variants of a framework's objects: a subclass, a copy, a wrapped factory.

Every adapter makes its citing objects here, so each of them keeps its options in one
attribute (`moca_agui_options`), gives its original back through `uninstrument`, and
cites once, with the newer options, when it is instrumented again. An adapter supplies
only the mixin class that overrides its framework's run path.
"""

from __future__ import annotations

import copy as _copy
import functools
import inspect
import types
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

from ..options import CitationOptions
from .verbs import ORIGINAL_ATTRIBUTE, uninstrument

__all__ = [
    "OPTIONS_ATTRIBUTE",
    "citing_class",
    "citing_copy",
    "citing_factory",
    "citing_variant",
    "options_of",
]

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

#: The one attribute a citing class or instance keeps its options in.
OPTIONS_ATTRIBUTE = "moca_agui_options"


def options_of(citing: object) -> CitationOptions:
    """The options a citing class or instance was made with (the defaults if none)."""
    options = getattr(citing, OPTIONS_ATTRIBUTE, None)
    return options if isinstance(options, CitationOptions) else CitationOptions()


def citing_variant(
    target: T, mixin: type, options: CitationOptions, *, copy: Callable[[T], T] = _copy.copy
) -> T:
    """`target` made citing with `options`: a citing subclass of a class (`citing_class`),
    a citing copy of an instance (`citing_copy`, made by `copy`)."""
    if isinstance(target, type):
        return cast(T, citing_class(target, mixin, options))
    return citing_copy(target, mixin, options, copy=copy)


def citing_class(cls: type[T], mixin: type, options: CitationOptions) -> type[T]:
    """A new subclass of `cls` whose runs cite with `options`.

    `mixin` comes first in its bases, unless `cls` has it already (a class made here, or
    a user's subclass of one): then only the options change. `uninstrument` of the
    result gives the plain class back.
    """
    plain = uninstrument(cls)
    namespace = {OPTIONS_ATTRIBUTE: options, ORIGINAL_ATTRIBUTE: plain}
    if issubclass(plain, mixin):
        return cast(type[T], _subclass(plain.__name__, (plain,), plain, namespace))
    bases = (mixin, _base(plain))
    return cast(type[T], _subclass(f"Citing{plain.__name__}", bases, plain, namespace))


def citing_copy(
    obj: T, mixin: type, options: CitationOptions, *, copy: Callable[[T], T] = _copy.copy
) -> T:
    """`copy(obj)` turned citing: its class is `obj`'s class with `mixin` mixed in first
    (made once per class), and `options` are set on the copy. `obj` is left unchanged;
    `uninstrument` of the copy gives it back."""
    twin = copy(obj)
    twin.__class__ = _mixed(cast(type, type(twin)), mixin)
    setattr(twin, OPTIONS_ATTRIBUTE, options)
    setattr(twin, ORIGINAL_ATTRIBUTE, obj)
    return twin


def citing_factory(factory: F, cite_made: Callable[..., Any]) -> F:
    """`factory` wrapped so that every object it makes goes through `cite_made`, called
    with the object and the arguments `factory` was called with.

    An `async def` factory stays one; a factory returning an awaitable returns one.
    """
    if inspect.iscoroutinefunction(factory):

        @functools.wraps(factory)
        async def made_async(*args: Any, **kwargs: Any) -> Any:
            return cite_made(await factory(*args, **kwargs), *args, **kwargs)

        return cast(F, made_async)

    @functools.wraps(factory)
    def made(*args: Any, **kwargs: Any) -> Any:
        result = factory(*args, **kwargs)
        if inspect.isawaitable(result):
            return _then(result, cite_made, args, kwargs)
        return cite_made(result, *args, **kwargs)

    return cast(F, made)


async def _then(
    awaitable: Awaitable[Any],
    cite_made: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> Any:
    return cite_made(await awaitable, *args, **kwargs)


@functools.cache
def _mixed(cls: type, mixin: type) -> type:
    """`cls` with `mixin` first in its bases, made once per pair; `cls` if it has it, and
    `mixin` itself if it is a subclass of `cls` already."""
    if issubclass(cls, mixin):
        return cls
    if issubclass(mixin, cls):
        return mixin
    return _subclass(f"Citing{cls.__name__}", (mixin, _base(cls)), cls, {})


def _base(cls: type) -> Any:
    """`cls` as a base that keeps a generic class subscriptable (`AGUIAdapter[...]`)."""
    parameters = getattr(cls, "__parameters__", ())
    return cls[parameters] if parameters else cls  # type: ignore[index]


def _subclass(name: str, bases: tuple[Any, ...], plain: type, namespace: dict[str, Any]) -> type:
    def body(ns: dict[str, Any]) -> None:
        ns.update(namespace, __module__=plain.__module__, __doc__=plain.__doc__)
        ns["__qualname__"] = name

    return types.new_class(name, bases, exec_body=body)
