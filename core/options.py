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
        budget = options.get("max_event_bytes", 1)
        if not isinstance(budget, int) or isinstance(budget, bool) or budget <= 0:
            raise TypeError("max_event_bytes must be a positive int")
        timeout = options.get("lookup_timeout", 1)
        if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
            raise TypeError("lookup_timeout must be a positive number of seconds")
        limit = options.get("max_request_bytes", 1)
        if not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0:
            raise TypeError("max_request_bytes must be a positive int (a number of bytes)")
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
