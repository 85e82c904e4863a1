from __future__ import annotations

import logging

import pytest


@pytest.fixture(autouse=True)
def _moca_logs(caplog: pytest.LogCaptureFixture) -> None:
    """Capture everything the moca_agui logger says, debug included."""
    caplog.set_level(logging.DEBUG, logger="moca_agui")
