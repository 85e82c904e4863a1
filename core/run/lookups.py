"""Lookups: the whole record of a node a compact search result named, asked once a run."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import logging
import types
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Generator, Iterable
from datetime import UTC, datetime
from typing import Any, TypeGuard, TypeVar

from ..options import CitationOptions, Lookup
from ..records.entry import entry_of
from ..records.extract import reader_items
from ..records.schema import InvalidRecord
from .checks import Checks, Found

__all__ = ["Lookups", "reader_lookup"]

logger = logging.getLogger("moca_agui")

_T = TypeVar("_T")


def reader_lookup(call: Callable[[str], object]) -> Lookup:
    """A `lookup` option that turns a compact result into the Reader's whole record.

    `call(ref)` calls the Reader's `moca_get_node` with `node_id=ref`, sync or async, and
    returns what the call returns: an MCP result, its content, JSON text or a dict, e.g.
    `lambda ref: session.call_tool("moca_get_node", {"node_id": ref})` on the agent's own
    MCP session. The lookup gives the record of `ref` in that answer, or None (a Reader
    error, no record). A `call` that is no `async def` runs in a thread, and a coroutine it
    gives is awaited in the event loop, holding its place among the run's
    `lookup_concurrency` throughout. A lookup cancelled or past its timeout stops waiting
    for the thread, but the thread finishes the call (still holding its place) and its
    answer is dropped.
    """
    if _is_async(call):

        async def lookup(ref: str) -> dict[str, Any] | None:
            return _record_of(ref, await call(ref))

        return lookup

    def blocking(ref: str) -> _Answer:
        answer = call(ref)
        if inspect.isawaitable(answer):  # e.g. a lambda giving a coroutine: awaited in the loop
            return _awaited_record_of(ref, answer)
        return _record_of(ref, answer)

    return _BlockingLookup(blocking)


class _BlockingLookup:
    """`reader_lookup` of a blocking call: awaited as any async lookup, while a run calls
    `blocking` in a thread of its own, whose end (and the coroutine it gives, awaited) it
    waits for to give back its place."""

    __slots__ = ("blocking",)

    def __init__(self, blocking: Callable[[str], _Answer]) -> None:
        self.blocking = blocking

    async def __call__(self, ref: str) -> dict[str, Any] | None:
        answer = await asyncio.to_thread(self.blocking, ref)
        return await answer if isinstance(answer, Coroutine) else answer


#: What a blocking lookup of `reader_lookup` gives: the record, or the coroutine giving it.
_Answer = dict[str, Any] | None | Coroutine[Any, Any, dict[str, Any] | None]


async def _awaited_record_of(ref: str, answer: Awaitable[object]) -> dict[str, Any] | None:
    return _record_of(ref, await answer)


def _record_of(ref: str, answer: object) -> dict[str, Any] | None:
    """The record of `ref` in a Reader's answer (another node's if it holds only that: the
    run logs that it is not ref's), or None."""
    records = [item for item in reader_items(answer) if isinstance(item, dict)]
    named = [record for record in records if record["node"].get("ref") == ref]
    chosen = named or records
    # A plain dict, the caller's to change: the run copies and checks what it gets.
    return dict(chosen[0]) if chosen else None


class Lookups:
    """One run's answers from `lookup`, by ref: each ref is asked at most once.

    A lookup runs as a task from the moment it is started (`start`: a source was first
    mentioned while the answer streams), so it runs while the model writes the rest;
    `look_up` waits for the ones an answer needs, and `cancel` ends the rest. A run asks
    for at most `max_lookups` nodes, `lookup_concurrency` at a time, all within one
    `lookup_deadline` from its first: a source past those bounds is left out (logged
    once a run).
    """

    __slots__ = (
        "__weakref__",
        "_async_lookup",
        "_checks",
        "_deadline",
        "_found",
        "_lookup",
        "_max",
        "_options",
        "_slots",
        "_tasks",
        "_timeout",
        "_told",
        "_warned",
    )

    def __init__(self, options: CitationOptions, checks: Checks) -> None:
        self._options = options
        lookup = self._lookup = options.lookup
        if isinstance(lookup, _BlockingLookup):  # the run calls it in a thread of its own
            lookup = lookup.blocking
        #: The lookup, if calling it makes a coroutine (asked once a run, not once a call).
        self._async_lookup = lookup if lookup is not None and _is_async(lookup) else None
        self._timeout = options.lookup_timeout
        self._max = options.max_lookups
        self._checks = checks
        self._found: dict[str, Found | None] = {}  # ref -> answer
        #: ref -> its lookup, once started; None once it ended (a task keeps the context it
        #: ran in, which holds the run: kept here, it would tie the run to itself in a cycle)
        self._tasks: dict[str, asyncio.Task[None] | None] = {}
        self._warned: set[str] = set()  # refs left out for want of a lookup, said once
        self._told: set[str] = set()  # the bounds whose excess was logged (once a run)
        #: Made with the first lookup (in the event loop): the free places, and the run's
        #: deadline (when it passes, one timer ends every lookup still running).
        self._slots: asyncio.Semaphore | None = None
        self._deadline: asyncio.TimerHandle | None = None

    @property
    def startable(self) -> bool:
        """Whether a lookup can still start: one is configured, `max_lookups` is not
        reached and `lookup_deadline` has not passed."""
        if self._lookup is None or len(self._tasks) >= self._max:
            return False
        return self._slots is None or self._deadline is not None

    def asked(self, ref: str) -> bool:
        return ref in self._tasks

    def found(self, ref: str) -> Found | None:
        return self._found.get(ref)

    def start(self, refs: Iterable[str]) -> None:
        """Start asking for each of `refs` not asked yet, up to `max_lookups` a run;
        returns at once."""
        lookup = self._lookup
        if lookup is None:
            return
        for ref in refs:
            if ref in self._tasks:
                continue
            if len(self._tasks) >= self._max:
                self._tell(
                    "max_lookups",
                    "moca_agui: left out %s and every further source only a lookup could "
                    "give a record of: this run looked up max_lookups=%d nodes; pass a "
                    "larger max_lookups to look up more",
                    ref,
                    self._max,
                )
                continue
            if self._slots is None:
                self._slots = asyncio.Semaphore(self._options.lookup_concurrency)
                loop = asyncio.get_running_loop()
                deadline = self._options.lookup_deadline
                # In a context of its own: the run's (which holds the run) would make the
                # timer and the run a cycle. It only ends lookups and logs.
                self._deadline = loop.call_later(
                    deadline, _expire, weakref.ref(self), context=contextvars.Context()
                )
            elif self._deadline is None:  # it passed: what was still running is left out
                self._past_deadline(ref)
                continue
            self._tasks[ref] = asyncio.create_task(self._look_up(lookup, ref, self._slots))

    async def look_up(self, refs: Iterable[str]) -> None:
        """Ask for `refs` (those not started yet) and wait for all of them, together: a
        dead Reader costs one timeout, not one per node."""
        wanted = list(dict.fromkeys(refs))
        self.start(wanted)
        tasks = [task for ref in wanted if (task := self._tasks.get(ref)) is not None]
        if all(task.done() for task in tasks):
            return
        # A lookup answering at once (from memory) ends in its task's first step, which the
        # loop runs before this task's next: one step of the loop, no waiter to set up.
        await asyncio.sleep(0)
        if not all(task.done() for task in tasks):
            await asyncio.wait(tasks)

    def cancel(self) -> None:
        """End every lookup still running (the run ended, failed or lost its client)."""
        if self._deadline is not None:
            self._deadline.cancel()
        for task in self._tasks.values():
            if task is not None:
                task.cancel()

    def _expired(self) -> None:
        """The run's `lookup_deadline` passed: every lookup still running or waiting for a
        place ends, its source left out, and none starts any more."""
        self._deadline = None
        running = [
            (ref, task) for ref, task in self._tasks.items() if task is not None and not task.done()
        ]
        if running:
            self._past_deadline(running[0][0])
        for _, task in running:
            task.cancel()

    def _past_deadline(self, ref: str) -> None:
        self._tell(
            "lookup_deadline",
            "moca_agui: left out %s and every source still being looked up "
            "lookup_deadline=%s seconds after this run's first lookup",
            ref,
            self._options.lookup_deadline,
        )

    def left_out(self, ref: str, tool: str) -> None:
        """Say once why a node named only by a compact result is left out: no `lookup`."""
        self._say_once(
            ref,
            "moca_agui: left out %s: %s returned a compact result, not a citation record; "
            'call %s with detail: "full", or pass lookup=<ref -> record> to moca_agui',
            tool,
            tool,
        )

    def left_out_earlier(self, ref: str) -> None:
        """Say once why a node read in an earlier turn is left out: no record of this run,
        and no `lookup` to ask the Reader again."""
        self._say_once(
            ref,
            "moca_agui: left out %s: it was read in an earlier turn, and the thread's records "
            "are not trusted; to cite follow-up answers, pass "
            "lookup=moca_agui.reader_lookup(<call the Reader's moca_get_node>)",
        )

    def _say_once(self, ref: str, message: str, *args: object) -> None:
        if self._lookup is None and ref not in self._warned:
            self._warned.add(ref)
            logger.warning(message, ref, *args)

    def _tell(self, bound: str, message: str, *args: object) -> None:
        """Log that a source went past `bound`, the first time one does in this run."""
        if bound not in self._told:
            self._told.add(bound)
            logger.warning(message, *args)

    async def _look_up(self, lookup: Lookup, ref: str, slots: asyncio.Semaphore) -> None:
        try:
            await self._record(lookup, ref, slots)
        finally:
            self._tasks[ref] = None  # it ended: the run lets go of its task

    async def _record(self, lookup: Lookup, ref: str, slots: asyncio.Semaphore) -> None:
        """Ask `lookup` for `ref` when a place is free, and keep the record it answers if
        it passes the checks."""
        await slots.acquire()  # `_call` gives the place back once its call ends
        answer = await self._call(lookup, ref, slots.release)
        if answer is None:
            return
        try:
            record = self._checks.copied(answer)
        except InvalidRecord as exc:
            logger.warning("moca_agui: skipped an invalid record from lookup: %s", exc)
            return
        if self._checks.accept("lookup", record) is None:
            return
        entry = entry_of(record)
        if entry is None or entry.ref != ref:
            logger.warning("moca_agui: left out %s: lookup returned another node", ref)
            return
        self._found[ref] = (record, datetime.now(UTC), entry.span)

    async def _call(self, lookup: Lookup, ref: str, done: Callable[[], None]) -> object:
        """What one `lookup` call answers for `ref` within `lookup_timeout`; None if it
        failed or found nothing (logged). `done` is called once the call really ends: for
        a blocking lookup, when its thread does (past any timeout or cancellation) and
        what the thread gave is awaited."""
        if isinstance(lookup, _BlockingLookup):
            lookup = lookup.blocking
        try:
            if self._async_lookup is not None:
                try:
                    answer = await self._awaited(await self._in_time(self._async_lookup(ref)))
                finally:
                    done()
            else:  # a blocking lookup must not stall the event loop
                answer = await self._from_thread(lookup, ref, done)
        except Exception:  # TimeoutError included
            logger.warning("moca_agui: left out %s: lookup failed", ref, exc_info=True)
            return None
        if answer is None:
            logger.info("moca_agui: left out %s: lookup found no record", ref)
        return answer

    async def _from_thread(self, lookup: Lookup, ref: str, done: Callable[[], None]) -> object:
        """What `lookup(ref)`, run in a thread, answers within `lookup_timeout`: an awaitable
        it gives (a lambda giving a coroutine) is awaited before `done` is called. A thread
        no one waits for any more calls `done` when it ends, its answer dropped."""
        thread = _in_thread(lookup, ref)
        try:
            async with asyncio.timeout(self._timeout):
                answer = await asyncio.shield(thread)
        except BaseException:  # past the timeout, cancelled, or the call failed
            thread.add_done_callback(functools.partial(_dropped, done))
            raise
        try:
            return await self._awaited(answer)
        finally:
            done()

    async def _awaited(self, answer: object) -> object:
        """`answer`, or what it gives within `lookup_timeout` if it is awaitable."""
        return await self._in_time(answer) if inspect.isawaitable(answer) else answer

    async def _in_time(self, answer: Awaitable[_T]) -> _T:
        """What `answer` gives, within `lookup_timeout`: a coroutine that returns without
        waiting (a lookup answering from memory) needs no timer, so its first step runs
        before one is set."""
        if not isinstance(answer, Coroutine):
            async with asyncio.timeout(self._timeout):
                return await answer
        try:
            waiting = answer.send(None)
        except StopIteration as returned:
            result: _T = returned.value
            return result
        async with asyncio.timeout(self._timeout):
            return await _resumed(answer, waiting)


@types.coroutine
def _resumed(coroutine: Coroutine[Any, Any, _T], waiting: object) -> Generator[Any, Any, _T]:
    """The rest of `coroutine`, whose first step yielded `waiting` (what it waits for) to
    the task running it: each step of the task goes on to it, a cancellation too."""
    while True:
        try:
            sent = yield waiting
        except BaseException as thrown:  # the task's (a cancellation): handed on
            try:
                waiting = coroutine.throw(thrown)
            except StopIteration as returned:
                result: _T = returned.value
                return result
        else:
            try:
                waiting = coroutine.send(sent)
            except StopIteration as returned:
                result = returned.value
                return result


def _expire(lookups: weakref.ref[Lookups]) -> None:
    """The run's `lookup_deadline` passed (`Lookups._expired`), if its lookups are still
    there: the timer keeps no run alive."""
    alive = lookups()
    if alive is not None:
        alive._expired()


def _in_thread(lookup: Lookup, ref: str) -> asyncio.Future[Any]:
    """`lookup(ref)` run in a thread (with this context, as `asyncio.to_thread` runs it),
    which no one can hasten or stop."""
    return asyncio.get_running_loop().run_in_executor(
        None, contextvars.copy_context().run, lookup, ref
    )


def _dropped(done: Callable[[], None], thread: asyncio.Future[Any]) -> None:
    """The end of a lookup's thread no one waits for any more: its place given back, its
    answer dropped (a coroutine closed unawaited, a failure not reported again)."""
    done()
    if thread.cancelled() or thread.exception() is not None:
        return
    answer = thread.result()
    if isinstance(answer, Coroutine):
        answer.close()


def _is_async(function: Callable[..., object]) -> TypeGuard[Callable[..., Awaitable[Any]]]:
    """Whether calling `function` makes a coroutine: an `async def`, or an object whose
    `__call__` is one (called in the event loop, not in a thread)."""
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
        getattr(function, "__call__", None)  # noqa: B004
    )
