"""The plugin manager: built-in behaviour and every `moca_agui` entry point."""

from __future__ import annotations

import functools
import importlib.metadata
import logging

import pluggy

from . import _builtin, hookspecs
from .hookspecs import hookimpl

__all__ = ["get_plugin_manager", "hookimpl"]

logger = logging.getLogger("moca_agui")


@functools.cache
def get_plugin_manager() -> pluggy.PluginManager:
    """The process's plugin manager, built on first use.

    Holds configuration only (which plugins exist), never the state of a run. A plugin
    whose entry point cannot be imported is skipped with a warning, so one broken
    third-party plugin does not take the others down.
    """
    manager = pluggy.PluginManager("moca_agui")
    manager.add_hookspecs(hookspecs)
    manager.register(_builtin, name="moca_agui.builtin")
    for entry_point in importlib.metadata.entry_points(group="moca_agui"):
        if manager.get_plugin(entry_point.name) is not None:
            continue
        try:
            plugin = entry_point.load()
        except Exception:
            logger.warning("moca_agui: could not load plugin %r", entry_point.value, exc_info=True)
            continue
        manager.register(plugin, name=entry_point.name)
    return manager
