"""The options of one citation layer: what counts as a Reader, what to send."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any, TypedDict

__all__ = ["DEFAULT_READER_TOOLS", "CitationOptions", "Lookup", "OptionKeywords"]

#: The tool names of the reference MOCA Reader (the `@openmoca/moca-mcp` server).
DEFAULT_READER_TOOLS: frozenset[str] = frozenset({"moca_search", "moca_get_node", "moca_structure"})

#: ref -> the whole citation record, or None; sync or async.
Lookup = Callable[[str], "Mapping[str, Any] | Awaitable[Mapping[str, Any] | None] | None"]


class OptionKeywords(TypedDict, total=False):
    """`CitationOptions` as keyword arguments, typed: each key is one of its fields."""

    reader_tools: Iterable[str]
    include_text: bool
    lookup: Lookup | None
    packages: Iterable[str] | None
    max_event_bytes: int
    lookup_timeout: float
    max_request_bytes: int
    max_lookups: int
    lookup_concurrency: int
    lookup_deadline: float


@dataclass(frozen=True, slots=True)
class CitationOptions:
    """What `cite` and `instrument` were told. Immutable, so one instance serves many runs."""

    #: Names of the tools whose results are Reader results. Results of any other tool are data.
    reader_tools: frozenset[str] = DEFAULT_READER_TOOLS
    #: Keep each record's `text` in the event (False drops it, the one change the spec allows).
    include_text: bool = True
    #: Turns a compact search result's ref into the whole record (e.g. the Reader's `get`).
    lookup: Lookup | None = None
    #: Digests of the packages the service loaded; records of any other package are left out.
    packages: frozenset[str] | None = None
    #: Size budget of one event's JSON; over it, `text` is dropped from the largest records first.
    max_event_bytes: int = 256 * 1024
    #: Seconds one `lookup` call may take before its record is left out.
    lookup_timeout: float = 10.0
    #: The longest request body `CitationMiddleware` reads the thread from; over it, the
    #: thread's markers are not known: only versioned refs are cited.
    max_request_bytes: int = 32 * 1024 * 1024
    #: Nodes one run looks up at most; the sources past them are left out (logged once).
    max_lookups: int = 64
    #: `lookup` calls one run has running at a time at most; the others wait their turn.
    lookup_concurrency: int = 8
    #: Seconds all of one run's lookups may take, from its first: what is still being
    #: looked up then is left out (logged once).
    lookup_deadline: float = 30.0

    @classmethod
    def from_kwargs(cls, **options: Any) -> CitationOptions:
        """Build options from keyword arguments, rejecting unknown names and wrong types."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise TypeError(
                f"unknown moca_agui option(s) {', '.join(unknown)}; "
                f"the options are {', '.join(sorted(known))}"
            )
        if "reader_tools" in options:
            options["reader_tools"] = names(options["reader_tools"], "reader_tools")
        if options.get("packages") is not None:
            options["packages"] = names(options["packages"], "packages")
        lookup = options.get("lookup")
        if lookup is not None and not callable(lookup):
            raise TypeError("lookup must be a callable taking a ref and returning a record or None")
        for option in ("max_event_bytes", "max_request_bytes", "max_lookups", "lookup_concurrency"):
            count = options.get(option, 1)
            if not isinstance(count, int) or isinstance(count, bool) or count <= 0:
                raise TypeError(f"{option} must be a positive int")
        for option in ("lookup_timeout", "lookup_deadline"):
            seconds = options.get(option, 1)
            if not isinstance(seconds, int | float) or isinstance(seconds, bool) or not seconds > 0:
                raise TypeError(f"{option} must be a positive number of seconds")
        if not isinstance(options.get("include_text", True), bool):
            raise TypeError("include_text must be a bool")
        return cls(**options)


def names(value: object, option: str) -> frozenset[str]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise TypeError(f"{option} must be a collection of strings, e.g. [{value!r}]")
    names = frozenset(value)
    if not all(isinstance(name, str) for name in names):
        raise TypeError(f"{option} must hold strings only")
    return names
