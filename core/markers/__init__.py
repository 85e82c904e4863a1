"""Marker styles: each module of this package is one (its `STYLE`), found by
`builtin_styles`, so a new style is a new module and touches no other file."""

from __future__ import annotations

import functools
import importlib
import pkgutil

from .style import MarkerStyle

__all__ = ["MarkerStyle", "builtin_styles"]


@functools.cache
def builtin_styles() -> tuple[MarkerStyle, ...]:
    """The style of each module of this package, by module name."""
    styles: list[MarkerStyle] = []
    for module in sorted(info.name for info in pkgutil.iter_modules(__path__)):
        style = getattr(importlib.import_module(f"{__name__}.{module}"), "STYLE", None)
        if style is not None:
            styles.append(style)
    return tuple(styles)
