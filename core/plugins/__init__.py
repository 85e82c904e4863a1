"""The plugins: the hooks, the manager that loads every `moca_agui` entry point, the
built-in plugin, and the verbs that ask the plugins (`instrument`, `numbered`)."""

from .hookspecs import hookimpl
from .manager import AUTOLOAD_ENV, get_plugin_manager

__all__ = ["AUTOLOAD_ENV", "get_plugin_manager", "hookimpl"]
