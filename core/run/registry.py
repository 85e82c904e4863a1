"""`RunRegistry`: the runs in flight, by an id (or per-run object).

A framework calls an adapter's hooks with what it has, not with the run the adapter
made: the registry is where a hook finds that run. A hook handed the framework's own run
id finds it under that id, or under one several runs may share (a thread's): the sole
run in flight under it, or none. A hook handed a per-run object finds it by that object
(`RunObjectRegistry`). A hook handed neither (only the client's run id, which runs in
flight may share) finds it as the kit's `request_run()`, as OpenInference follows the
context where it has no run id (and what its adapter keeps for the run in a registry
keyed by that run). One registry per citing object (never module-wide); neither keeps a
run alive past its run.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Hashable
from functools import partial
from typing import Generic, TypeVar
from weakref import WeakKeyDictionary, ref

__all__ = ["RunObjectRegistry", "RunRegistry"]

logger = logging.getLogger("moca_agui")

R = TypeVar("R")


class RunRegistry(Generic[R]):
    """Runs by an id (`ids` names what it is: "run id", "thread"), under a lock (hooks may
    run on other threads).

    A run leaves when it is removed (its owner's `finally`), or else when nothing else holds
    it (its stream ended). Two runs in flight under one id are never told apart: neither
    is found (logged), so neither is fed the other's results.
    """

    __slots__ = ("_gone", "_ids", "_lock", "_runs")

    def __init__(self, ids: str = "run id") -> None:
        self._ids = ids
        self._lock = threading.Lock()
        self._runs: dict[Hashable, list[ref[R]]] = {}
        #: Ids whose runs were collected since the registry last looked (`_collected`).
        self._gone: list[Hashable] = []

    def add(self, key: Hashable, run: R) -> None:
        """Register `run` under `key` while it is in flight (beside another run there,
        neither is found while both are)."""
        with self._lock:
            runs = self._live(key)
            if not any(held() is run for held in runs):
                runs.append(ref(run, partial(self._collected, key)))
            self._runs[key] = runs

    def remove(self, key: Hashable, run: R) -> None:
        """`run` has ended: it is found no more under `key`."""
        with self._lock:
            runs = [held for held in self._live(key) if held() is not run]
            if runs:
                self._runs[key] = runs

    def get(self, key: Hashable) -> R | None:
        """The run in flight under `key` if it is the only one; None (logged if several)."""
        with self._lock:
            runs = self._live(key)
            if runs:
                self._runs[key] = runs
            found = [held() for held in runs]
        if len(found) > 1:
            logger.warning(
                "moca_agui: %d runs of %s %s are in flight at once: none is found, for "
                "they cannot be told apart",
                len(found),
                self._ids,
                key,
            )
        return found[0] if len(found) == 1 else None

    def _collected(self, key: Hashable, _: object) -> None:
        """A run under `key` was collected (a weak reference's callback, which may run
        inside the lock: it only notes the id)."""
        self._gone.append(key)

    def _live(self, key: Hashable) -> list[ref[R]]:
        """The runs under `key` still held by something, taken out of the registry (the
        caller puts them back): also drops the ids of runs collected since (under the lock)."""
        while self._gone:
            gone = self._gone.pop()
            if gone != key:
                runs = [held for held in self._runs.pop(gone, ()) if held() is not None]
                if runs:
                    self._runs[gone] = runs
        return [held for held in self._runs.pop(key, ()) if held() is not None]


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
