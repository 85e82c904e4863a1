"""The plugin manager: built-in behaviour and every `moca_agui` entry point."""

from __future__ import annotations

import functools
import importlib.metadata
import logging
import os
import re
from typing import Any

import pluggy

from ..markers import MarkerStyle
from . import builtin, hookspecs
from .hookspecs import hookimpl

__all__ = ["AUTOLOAD_ENV", "builtin_only", "get_plugin_manager", "hookimpl", "marker_styles"]

logger = logging.getLogger("moca_agui")

#: Set to 1 to load no entry point of another distribution (as PYTEST_DISABLE_PLUGIN_AUTOLOAD).
AUTOLOAD_ENV = "MOCA_AGUI_DISABLE_PLUGIN_AUTOLOAD"
_OWN_DISTRIBUTION = "moca-agui"


@functools.cache
def get_plugin_manager() -> pluggy.PluginManager:
    """The process's plugin manager, built on first use.

    Holds configuration only (which plugins exist), never the state of a run. A plugin
    whose entry point cannot be imported is skipped with a warning, so one broken
    third-party plugin does not take the others down; a plugin implementing a hook that
    does not exist (a misspelled name) raises `pluggy.PluginValidationError`, as in
    pytest. With MOCA_AGUI_DISABLE_PLUGIN_AUTOLOAD=1 only moca-agui's own adapters load.
    """
    manager = pluggy.PluginManager("moca_agui")
    manager.add_hookspecs(hookspecs)
    manager.register(builtin, name="moca_agui.builtin")
    own_only = os.environ.get(AUTOLOAD_ENV, "") not in ("", "0")
    for entry_point in importlib.metadata.entry_points(group="moca_agui"):
        if manager.get_plugin(entry_point.name) is not None:
            continue
        distribution = entry_point.dist.name if entry_point.dist is not None else None
        if own_only and distribution != _OWN_DISTRIBUTION:
            logger.debug("moca_agui: %r not loaded: %s is set", entry_point.name, AUTOLOAD_ENV)
            continue
        try:
            plugin = entry_point.load()
        except Exception:
            logger.warning("moca_agui: could not load plugin %r", entry_point.value, exc_info=True)
            continue
        manager.register(plugin, name=entry_point.name)
    manager.check_pending()
    return manager


def builtin_only(caller: Any) -> bool:
    """Whether the built-in plugin is the only one implementing the hook `caller`."""
    return all(impl.plugin is builtin for impl in caller.get_hookimpls())


def marker_styles() -> tuple[MarkerStyle, ...]:
    """Every plugin's marker styles (`moca_marker_styles`), each once; the built-in ones
    alone if a plugin fails (logged)."""
    hook = get_plugin_manager().hook.moca_marker_styles
    if builtin_only(hook):  # styles of its own, each once: none to check (asked once a run)
        return tuple(builtin.moca_marker_styles())
    try:
        answers = hook()
    except Exception:
        logger.exception("moca_agui: a plugin failed in moca_marker_styles")
        return tuple(builtin.moca_marker_styles())
    styles: list[MarkerStyle] = []
    kept: set[int] = set()  # the ids of `styles` (each style once, by identity)
    for answer in answers:
        for style in answer or ():
            if id(style) in kept:
                continue
            if _is_style(style):
                styles.append(style)
                kept.add(id(style))
            else:
                logger.warning("moca_agui: skipped a marker style that is none: %.80r", style)
    return tuple(styles)


def _is_style(style: object) -> bool:
    """Whether `style` has what a `MarkerStyle` has: one-character opener and closer, a
    compiled pattern and `items`."""
    opener, closer = getattr(style, "opener", None), getattr(style, "closer", None)
    return (
        isinstance(opener, str)
        and isinstance(closer, str)
        and len(opener) == len(closer) == 1
        and isinstance(getattr(style, "pattern", None), re.Pattern)
        and callable(getattr(style, "items", None))
    )
