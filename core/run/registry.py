"""`RunRegistry`: the runs in flight, by the framework's own run id (or per-run object).

A framework calls an adapter's hooks with its own ids, not with the run the adapter made:
the registry is where a hook finds that run, as OpenInference finds a span by its run id.
Where the hooks reach no run id, `RunObjectRegistry` finds the run by the object the
framework hands each of them for that run. One registry per citing object (never
module-wide); neither keeps a run alive past its run.
"""

from __future__ import annotations

import logging
import threading
from typing import Generic, TypeVar
from weakref import WeakKeyDictionary, WeakValueDictionary

__all__ = ["RunObjectRegistry", "RunRegistry"]

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


class RunObjectRegistry(Generic[R]):
    """Runs by the object a framework hands each of a run's hooks as its own (a run's
    state store, say), under a lock: for a framework whose hooks reach no run id.

    The object is held weakly, the run as long as the object lives: a run the framework
    drops between its hooks (cancelled, timed out) leaves with it. An object is one run's
    while it lives, so no other run is ever found under it.
    """

    __slots__ = ("_lock", "_runs")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: WeakKeyDictionary[object, R] = WeakKeyDictionary()

    def add(self, owner: object, run: R) -> None:
        """Register `run` under the framework's per-run object `owner`."""
        with self._lock:
            self._runs[owner] = run

    def get(self, owner: object) -> R | None:
        """The run registered under `owner`, if one is."""
        with self._lock:
            return self._runs.get(owner)

    def remove(self, owner: object) -> None:
        """The run under `owner` ended: it is found no more."""
        with self._lock:
            self._runs.pop(owner, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._runs)
