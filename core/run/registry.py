"""`RunRegistry`: the runs in flight, by the framework's own run id.

A framework calls an adapter's hooks with its own ids, not with the run the adapter made:
the registry is where a hook finds that run, as OpenInference finds a span by its run id.
One registry per citing object (never module-wide); it keeps no run alive.
"""

from __future__ import annotations

import logging
import threading
from typing import Generic, TypeVar
from weakref import WeakValueDictionary

__all__ = ["RunRegistry"]

logger = logging.getLogger("moca_agui")

R = TypeVar("R")


class RunRegistry(Generic[R]):
    """Runs by the framework's run id, under a lock (hooks may run on other threads).

    A run leaves when nothing else holds it (its stream ended). Two runs in flight under
    one id are never told apart: neither is found (logged), so neither is fed the other's
    results.
    """

    __slots__ = ("_lock", "_runs")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: WeakValueDictionary[str, R] = WeakValueDictionary()

    def add(self, run_id: str, run: R) -> None:
        """Register `run` under `run_id` while it is in flight."""
        with self._lock:
            held = self._runs.pop(run_id, None)
            if held is None or held is run:
                self._runs[run_id] = run
                return
        logger.warning(
            "moca_agui: two runs in flight share the run id %r; neither is cited from the "
            "framework's own hooks",
            run_id,
        )

    def get(self, run_id: str) -> R | None:
        """The run in flight under `run_id`, if one is."""
        with self._lock:
            return self._runs.get(run_id)
