"""Is a target an object of a framework? Asked without importing the framework.

An adapter's plugin loads in every process that uses moca_agui, its framework installed
or not. It names the framework's classes as `"module:Class"` and finds them only in
`sys.modules`: a target can only be an instance of a class whose module the
application has imported already, so nothing is imported here.
"""

from __future__ import annotations

import sys
from typing import Any, TypeGuard

__all__ = ["instance_of", "instance_or_subclass_of", "subclass_of"]


def _classes(*classes: str) -> tuple[type, ...]:
    """The classes among `classes` (`"package.module:Class"`) whose module is imported.

    A module of that name without such a class has none: it is not the framework (a
    folder of the framework's name on sys.path is an empty namespace package where the
    framework is not installed). Looking never raises, which would fail `instrument()`
    and `numbered()` for every adapter.
    """
    found = []
    for name in classes:
        module, _, attribute = name.partition(":")
        found_class = getattr(sys.modules.get(module), attribute, None)
        if isinstance(found_class, type):
            found.append(found_class)
    return tuple(found)


def instance_of(target: object, *classes: str) -> TypeGuard[Any]:
    """Whether `target` is an instance of one of `classes` (`"package.module:Class"`)."""
    return isinstance(target, _classes(*classes))


def subclass_of(target: object, *classes: str) -> TypeGuard[type[Any]]:
    """Whether `target` is one of `classes` or a class derived from one."""
    return isinstance(target, type) and issubclass(target, _classes(*classes))


def instance_or_subclass_of(target: object, *classes: str) -> bool:
    """Whether `target` is an instance of one of `classes`, or one of them or a subclass."""
    return instance_of(target, *classes) or subclass_of(target, *classes)
