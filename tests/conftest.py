"""What every test session shares."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from named_skips import pytest_configure as pytest_configure  # CI: a skip names its session

from moca_agui.plugins import get_plugin_manager


@pytest.fixture
def register() -> Iterator[Callable[[object], None]]:
    """Register inline plugins on the process's manager for one test."""
    manager, added = get_plugin_manager(), []
    yield lambda plugin: added.append(manager.register(plugin))
    for name in added:
        manager.unregister(name=name)
