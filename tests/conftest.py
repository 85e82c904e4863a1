"""What every test session needs before it starts."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from contract import CAPTURES, SHARED

from moca_agui.plugins import get_plugin_manager


def pytest_configure(config: pytest.Config) -> None:
    """Refuse to run without `../shared`: tests would fail on files they cannot find, and
    a test that loops over the reference Reader's captures would pass over none."""
    if not CAPTURES.is_dir():
        raise pytest.UsageError(
            f"{SHARED} is not there: the tests read the shared contract beside the "
            "checkout (<dir>/moca-agui and <dir>/shared; see CONTRIBUTING.md)"
        )


@pytest.fixture
def register() -> Iterator[Callable[[object], None]]:
    """Register inline plugins on the process's manager for one test."""
    manager, added = get_plugin_manager(), []
    yield lambda plugin: added.append(manager.register(plugin))
    for name in added:
        manager.unregister(name=name)
