"""Helpers for Python clients of `moca.citations`: read the events, show the sources.

    conversation = moca_agui.client.Conversation()
    for event in events:                       # wire dicts or ag_ui.core events
        conversation.feed(event)
    for message in conversation.messages():
        for source in message.sources.values():        # keyed by node.ref
            html = render_record(source.record, marker=source.marker,
                                 computed_at=message.computed_at)

The rules are the spec's client rules (MOCA citations over AG-UI 0.6.0, section 4): an
event of an unknown version, for a message this stream does not have, or any unknown
CUSTOM event is ignored; an invalid record is skipped with a warning; sources are keyed by
`node.ref`; trust is shown as the Reader contract says (a declared verification is never
a review); every record field is data, escaped, and only http(s) URLs become links.
The demo page applies the same rules, and `moca-agui check` reports what they find.
"""

from __future__ import annotations

import calendar
import html
import ipaddress
import logging
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import unquote_to_bytes

from .records.event import EVENT_VERSION
from .records.schema import InvalidRecord, as_record
from .stream.follow import Follower, StreamSink

__all__ = [
    "POSITIVE_OUTCOMES",
    "Badge",
    "CitationsValue",
    "ClientCitation",
    "ClientMessage",
    "Conversation",
    "Problem",
    "Tone",
    "read_value",
    "render_record",
    "safe_url",
    "trust_badges",
    "wire_event",
]

logger = logging.getLogger("moca_agui")

Tone = Literal["good", "info", "warning", "danger"]
#: Review outcomes shown in the good tone (lower-cased); any other outcome is a warning.
POSITIVE_OUTCOMES = frozenset({"accurate", "approved", "correct"})
#: RFC 3339's date-time, in ASCII digits only (`\d` would take any script's digits).
_RFC3339 = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?"
    r"(?:[Zz]|[+-]([0-9]{2}):([0-9]{2}))"
)


# -- reading the event -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Problem:
    """Something in an event's value that the spec does not allow."""

    section: str  # of the spec, e.g. "§2"
    rule: str
    message: str
    #: Index in `value.citations` of the entry concerned, if any.
    citation: int | None = None
    #: True when a client ignores the whole event for it, False when only an entry.
    ignores_event: bool = False


@dataclass(frozen=True, slots=True)
class ClientCitation:
    """One valid entry of an event: a citation record and its marker, if any."""

    record: dict[str, Any]
    marker: str | None = None

    @property
    def ref(self) -> str:
        """`record.node.ref`: the key a client records a source by."""
        return str(self.record["node"]["ref"])

    @property
    def span(self) -> tuple[int, int] | None:
        span = self.record.get("span")
        return (span["start"], span["end"]) if span else None


@dataclass(frozen=True, slots=True)
class CitationsValue:
    """The usable part of a `moca.citations` event: its message, time and valid entries."""

    message_id: str
    citations: tuple[ClientCitation, ...]
    computed_at: str | None = None


def read_value(value: object) -> tuple[CitationsValue | None, list[Problem]]:
    """Read an event's `value` as a client does, and say what was wrong with it.

    Returns None (ignore the event) for an unknown version or a value without a usable
    `messageId` or `citations` list; otherwise the value with its valid entries only.
    """
    problems: list[Problem] = []
    if not isinstance(value, Mapping):
        return None, [Problem("§2", "value", "the value is not an object", ignores_event=True)]
    version = value.get("version")
    if version != EVENT_VERSION or isinstance(version, bool):
        problem = Problem(
            "§2", "version", f"version is {version!r}, not {EVENT_VERSION}", None, True
        )
        return None, [problem]
    message_id = value.get("messageId")
    if not isinstance(message_id, str) or not message_id:
        problem = Problem("§2", "messageId", "messageId is not a non-empty string", None, True)
        return None, [problem]
    entries = value.get("citations")
    if not isinstance(entries, list):
        problem = Problem("§2", "citations", "citations is not a list", None, True)
        return None, [problem]
    computed_at = value.get("computedAt")
    if "computedAt" in value and not _is_rfc3339(computed_at):
        problems.append(
            Problem("§2", "computedAt", "computedAt is not an RFC 3339 date-time with an offset")
        )
        computed_at = None
    unknown = sorted(set(value) - {"version", "messageId", "computedAt", "citations"})
    if unknown:
        problems.append(Problem("§2", "value", f"unknown field(s) {', '.join(unknown)}"))
    citations = []
    for index, entry in enumerate(entries):
        citation = _read_entry(index, entry, problems)
        if citation is not None:
            citations.append(citation)
    return CitationsValue(message_id, tuple(citations), computed_at), problems


def _read_entry(index: int, entry: object, problems: list[Problem]) -> ClientCitation | None:
    if not isinstance(entry, Mapping) or "record" not in entry:
        problems.append(
            Problem("§2", "citation", "the entry is not an object with a record", index)
        )
        return None
    unknown = sorted(set(entry) - {"record", "marker"})
    if unknown:
        problems.append(Problem("§2", "citation", f"unknown field(s) {', '.join(unknown)}", index))
    marker = entry.get("marker")
    if marker is not None and (not isinstance(marker, str) or not marker):
        problems.append(Problem("§2", "marker", "marker is not a non-empty string", index))
        marker = None
    try:
        record = as_record(entry["record"])
    except InvalidRecord as exc:
        problems.append(Problem("§2", "record", f"not a valid citation record: {exc}", index))
        return None
    return ClientCitation(record, marker)


def _is_rfc3339(value: object) -> bool:
    """An RFC 3339 date-time with an offset, each field in its range (a leap second too)."""
    match = _RFC3339.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        return False
    year, month, day, hour, minute, second = (int(match[n]) for n in range(1, 7))
    if not 1 <= month <= 12 or not 1 <= day <= calendar.monthrange(year, month)[1]:
        return False
    offset = (int(match[8] or 0), int(match[9] or 0))
    return hour < 24 and minute < 60 and second < 61 and offset[0] < 24 and offset[1] < 60


# -- attaching events to messages ------------------------------------------------------


@dataclass(slots=True)
class ClientMessage:
    """An assistant message of the stream, with the sources its event named."""

    id: str
    text: str = ""
    #: The event's valid citations, in the event's order (None: no event yet).
    citations: tuple[ClientCitation, ...] | None = None
    computed_at: str | None = None

    @property
    def sources(self) -> dict[str, ClientCitation]:
        """The citations keyed by `node.ref` (the first entry of each ref)."""
        keyed: dict[str, ClientCitation] = {}
        for citation in self.citations or ():
            keyed.setdefault(citation.ref, citation)
        return keyed


class Conversation:
    """The assistant messages of an AG-UI stream and the citations attached to them.

    The stream is followed as `@ag-ui/client` follows it (`moca_agui.stream.follow`, which
    `cite` and `moca-agui check` use too): a chunk without `messageId` continues the open
    chunked message only until another event closes it.

    A MESSAGES_SNAPSHOT replaces the messages, as there: one it leaves out is gone (an
    event naming it later is ignored), and an answer it renames (the same text under a
    new id) keeps its sources. Sources come from `moca.citations` events and from the
    same value on a snapshot message's `metadata` (`moca_agui.METADATA_KEY`), so a client
    that keeps only snapshots has them too; the same value twice (its copy, a replayed
    event) is taken once.
    """

    __slots__ = ("_follower", "_messages")

    def __init__(self) -> None:
        self._messages: dict[str, ClientMessage] = {}
        attach = _Attach(self._messages)
        self._follower = attach.follower = Follower(attach)

    def feed(self, event: object) -> None:
        """Take in one event: a wire dict (camelCase) or an `ag_ui.core` event."""
        self._follower.feed(wire_event(event))

    def messages(self) -> list[ClientMessage]:
        """The assistant messages, in the order they began."""
        return list(self._messages.values())

    def message(self, message_id: str) -> ClientMessage | None:
        return self._messages.get(message_id)


class _Attach(StreamSink):
    """What a `Conversation` makes of the facts of its stream."""

    __slots__ = ("_messages", "_snapshot", "_snapshot_ids", "follower")

    def __init__(self, messages: dict[str, ClientMessage]) -> None:
        self._messages = messages
        self.follower: Follower | None = None  # the follower that reports to it
        self._snapshot: list[tuple[str, object]] = []  # the snapshot's assistant messages
        self._snapshot_ids: set[str] = set()  # every message id of the snapshot

    def message_opened(self, message_id: str, role: str) -> None:
        if role == "assistant":
            self._messages.setdefault(message_id, ClientMessage(message_id))

    def text(self, message_id: str, delta: str) -> None:
        if self.follower is None or self.follower.role_of(message_id) == "assistant":
            message = self._messages.setdefault(message_id, ClientMessage(message_id))
            message.text += delta

    def snapshot_started(self) -> None:
        self._snapshot, self._snapshot_ids = [], set()

    def snapshot_message(
        self, message_id: str, role: str, content: object, tool_call_id: str | None
    ) -> None:
        """A model that does not stream sends its text only in a snapshot."""
        self._snapshot_ids.add(message_id)
        if role == "assistant":
            self._snapshot.append((message_id, content))
            if isinstance(content, str) and content:
                self._messages.setdefault(message_id, ClientMessage(message_id, content))

    def snapshot_citations(self, message_id: str, value: object) -> None:
        """The citations a snapshot message carries on its metadata: its event's value."""
        read = _read(value)
        if read is not None and read.message_id != message_id:
            logger.warning(
                "moca_agui.client: ignored the citations on message %.200r's metadata: "
                "they name message %.200r",
                message_id,
                read.message_id,
            )
            return
        if read is not None:
            self._attach(read)

    def snapshot_ended(self) -> None:
        """The snapshot replaced the messages, as `@ag-ui/client` applies it: those it
        leaves out are gone, and an answer it names otherwise (the same text, a new id)
        keeps its sources under the new id; when two answers share a text, neither moves."""
        shown, self._snapshot = self._snapshot, []
        ids = {message_id for message_id, _ in shown}
        snapshot_ids = self._snapshot_ids
        cited: dict[str, list[ClientMessage]] = {}
        for message in self._messages.values():
            if message.citations is not None and message.id not in ids:
                cited.setdefault(message.text.strip(), []).append(message)
        named: dict[str, list[str]] = {}
        for message_id, content in shown:
            held = self._messages.get(message_id)
            if isinstance(content, str) and held is not None and held.citations is None:
                named.setdefault(content.strip(), []).append(message_id)
        for text, new in named.items():
            old = cited.get(text, [])
            if len(new) == 1 and len(old) == 1:
                renamed = self._messages[new[0]]
                renamed.citations, renamed.computed_at = old[0].citations, old[0].computed_at
        for message_id in [mid for mid in self._messages if mid not in snapshot_ids]:
            del self._messages[message_id]

    def citations(self, value: object) -> None:
        read = _read(value)
        if read is not None:
            self._attach(read)

    def _attach(self, read: CitationsValue) -> None:
        message = self._messages.get(read.message_id)
        if message is None:
            logger.warning(
                "moca_agui.client: ignored moca.citations for %.200r: no such assistant message",
                read.message_id,
            )
            return
        if message.citations is None:
            message.citations, message.computed_at = read.citations, read.computed_at
        elif (message.citations, message.computed_at) == (read.citations, read.computed_at):
            # The same value again: the metadata's copy, or an event replayed on reconnect.
            logger.debug("moca_agui.client: message %.200r already has these", read.message_id)
        else:
            logger.warning(
                "moca_agui.client: ignored a second moca.citations for message %.200r",
                read.message_id,
            )

    def rejected(self, kind: str, reason: str) -> None:
        logger.warning("moca_agui.client: ignored a %s: %s", kind, reason)


def _read(value: object) -> CitationsValue | None:
    """`read_value`, its problems logged."""
    read, problems = read_value(value)
    for problem in problems:
        logger.warning(
            "moca_agui.client: %s %s: %s", problem.section, problem.rule, problem.message
        )
    return read


def wire_event(event: object) -> dict[str, Any]:
    """An event as a wire dict: `ag_ui.core` events are dumped camelCase without nulls."""
    dump = getattr(event, "model_dump", None)
    wire = dump(mode="json", by_alias=True, exclude_none=True) if callable(dump) else event
    if not isinstance(wire, Mapping):
        raise TypeError(f"an AG-UI event is an object, not {type(event).__name__}")
    return dict(wire)


# -- showing trust ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Badge:
    """One trust signal of a record, as a client shows it."""

    key: str  # stable, for styling and tests: "attested-review", "stale", ...
    label: str
    tone: Tone
    detail: str


def trust_badges(record: Mapping[str, Any]) -> list[Badge]:
    """The trust badges of a citation record, most serious first.

    As the Reader contract says: `declaredVerified` is the author's own claim and is
    never shown as a review; only `attestedReviews` are reviews, each labelled with its
    outcome and in the good tone only for one of `POSITIVE_OUTCOMES`. Stale, superseded,
    contested and out-of-force nodes, draft and deprecated status, the package signature
    and the evidence checks are each shown.
    """
    trust, package = record["trust"], record["package"]
    badges: list[Badge] = []
    if trust["status"] == "deprecated":
        badges.append(
            Badge("deprecated", "Deprecated", "danger", "The author deprecated this node.")
        )
    if not trust["inForce"]:
        window = _window(trust)
        badges.append(Badge("not-in-force", "Not in force", "danger", f"Not in force{window}."))
    if trust["superseded"]:
        by = ", ".join(trust.get("supersededBy") or ()) or "another loaded package"
        badges.append(Badge("superseded", "Superseded", "danger", f"Superseded by {by}."))
    if trust["stale"]:
        after = f" ({trust['staleAfter']})" if trust.get("staleAfter") else ""
        badges.append(Badge("stale", "Stale", "warning", f"Past its review date{after}."))
    if trust["contested"]:
        by = ", ".join(trust.get("contestedBy") or ()) or "another source"
        badges.append(Badge("contested", "Contested", "warning", f"Contested by {by}."))
    if trust["status"] == "draft":
        badges.append(Badge("draft", "Draft", "warning", "The author marked this node a draft."))
    for review in trust["attestedReviews"]:
        scope = f" Scope: {review['scope']}." if review.get("scope") else ""
        detail = (
            f"Reviewed by {review['reviewer']} on {review['reviewedAt']}: {review['outcome']}. "
            f"Signed by {review['signer']}.{scope}"
        )
        outcome = str(review["outcome"])
        tone: Tone = "good" if outcome.lower() in POSITIVE_OUTCOMES else "warning"
        label = f"Reviewed: {outcome} (signed)"
        badges.append(Badge("attested-review", label, tone, detail))
    for claim in trust["declaredVerified"]:
        at = f" on {claim['at']}" if claim.get("at") else ""
        detail = f"The author says {claim['by']} verified it{at}. Not signed, not checked."
        badges.append(Badge("declared-verification", "Verified, as declared", "info", detail))
    if package["signed"]:
        signers = ", ".join(package.get("signers") or ()) or "a trusted publisher"
        detail = f"The package signature verified against the host's trust root: {signers}."
        badges.append(Badge("signed-package", "Signed package", "good", detail))
    else:
        detail = "No package signature verified against the host's trust root."
        badges.append(Badge("unsigned-package", "Unsigned package", "warning", detail))
    generated = trust.get("generated")
    if generated:
        at = f" at {generated['at']}" if generated.get("at") else ""
        badges.append(
            Badge("generated", "Generated", "info", f"Generated by {generated['by']}{at}.")
        )
    badges += _evidence_badges(record.get("evidence") or ())
    return badges


def _window(trust: Mapping[str, Any]) -> str:
    parts = []
    if trust.get("validFrom"):
        parts.append(f"from {trust['validFrom']}")
    if trust.get("validUntil"):
        parts.append(f"until {trust['validUntil']}")
    return f" (valid {' '.join(parts)})" if parts else ""


def _evidence_badges(evidence: Sequence[Mapping[str, Any]]) -> list[Badge]:
    states = [entry.get("matched") for entry in evidence]
    badges = []
    matched, unmatched, unchecked = states.count(True), states.count(False), states.count(None)
    if matched:
        detail = "Quoted evidence found in the cited source: the quote is there, not proof."
        badges.append(Badge("evidence-matched", f"Evidence matched ({matched})", "good", detail))
    if unmatched:
        detail = "Quoted evidence NOT found in the cited source."
        label = f"Evidence not matched ({unmatched})"
        badges.append(Badge("evidence-not-matched", label, "danger", detail))
    if unchecked:
        detail = "Evidence the Reader could not check (a source outside the package)."
        label = f"Evidence not checked ({unchecked})"
        badges.append(Badge("evidence-unchecked", label, "info", detail))
    return badges


# -- rendering -------------------------------------------------------------------------


def safe_url(value: object) -> str | None:
    """`value` if it is an absolute http(s) URL safe to link to, else None.

    One rule with the npm package's `safeUrl` (the shared case table holds both to it): no
    spaces, control characters (DEL too), quotes, backslashes or angle brackets anywhere;
    `http://` or `https://` and a host; the host as the WHATWG URL parser reads it (valid
    percent-encoding, no forbidden code point, a valid IPv4 address or bracketed IPv6, no
    empty or undecodable `xn--` label), its port 0 to 65535; and no bidirectional control
    or invisible character in the authority, which would make the link read as another;
    an internationalised host (raw or `xn--`) of letters, marks and digits, written as it
    is meant (no full-width letters, no label starting with a combining mark or mixing
    right-to-left with left-to-right letters or digits).
    """
    if not isinstance(value, str) or any(ord(c) < 0x21 or c in "\\\"'<>`\x7f" for c in value):
        return None
    match = _HTTP_URL.match(value)
    if match is None:
        return None
    authority = match["authority"]
    if any(_invisible(c) for c in authority):
        return None
    host_port = authority.rpartition("@")[2]
    if host_port.startswith("["):
        host, bracket, port = host_port[1:].partition("]")
        if not bracket or (port and not port.startswith(":")) or not _ipv6(host):
            return None
        port = port[1:]
    else:
        host, _, port = host_port.partition(":")
        if not _domain(host):
            return None
    if port and (not port.isascii() or not port.isdigit() or int(port) > 65535):
        return None
    return value


_HTTP_URL = re.compile(r"https?://(?P<authority>[^/?#]+)", re.IGNORECASE)
#: Characters that draw nothing or reorder text, beyond the categories Cf, Cc and Z*: the
#: default-ignorable code points of other categories (Hangul fillers, variation selectors).
_INVISIBLE = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u3164\uffa0")
_FORBIDDEN_HOST = frozenset(" #%/:<>?@[\\]^|\x7f")


def _invisible(char: str) -> bool:
    code = ord(char)
    return (
        unicodedata.category(char) in ("Cf", "Cc", "Co", "Cn", "Zs", "Zl", "Zp")
        or char in _INVISIBLE
        or 0xFE00 <= code <= 0xFE0F
        or 0xE0000 <= code <= 0xE0FFF
    )


def _ipv6(text: str) -> bool:
    if not text or "%" in text or not text.isascii():
        return False
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def _domain(host: str) -> bool:
    """Whether the WHATWG URL parser reads `host` as a domain or an IPv4 address."""
    if _BAD_PERCENT.search(host):
        return False
    try:
        decoded = unquote_to_bytes(host).decode("utf-8")
    except UnicodeDecodeError:
        return False
    mapped = decoded.lower()
    if not mapped or any(ord(c) < 0x20 or c in _FORBIDDEN_HOST or _invisible(c) for c in mapped):
        return False
    if not mapped.isascii() and not _plain_idn(mapped):
        return False
    labels = mapped.split(".")
    if not all(map(_idn_char, mapped)):
        return False
    for label in labels:
        if label.startswith("xn--"):
            try:
                unicode = label[4:].encode("ascii").decode("punycode")
            except (UnicodeError, ValueError):
                return False
            # A label that decodes to nothing, to ASCII, to what the mapping would change
            # (`a\u2488`, "a1."), or to a symbol (a snowman) is not a host to link to.
            if not unicode or unicode.isascii() or not all(map(_idn_char, unicode)):
                return False
            if not _plain_idn(unicode):
                return False
    last = labels[-2] if len(labels) > 1 and not labels[-1] else labels[-1]
    if last and ((last.isdigit() and last.isascii()) or _HEX_PART.fullmatch(last)):
        return _ipv4(labels[:-1] if not labels[-1] else labels)
    return True


_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_HEX_PART = re.compile(r"0[xX][0-9A-Fa-f]*")
_IPV4_PART = re.compile(r"0[xX][0-9A-Fa-f]*|[0-9]+")


def _plain_idn(host: str) -> bool:
    """An internationalised host written as it is meant: what a compatibility or case
    mapping would change (full-width letters, `\u2488`, an ideographic full stop) is
    refused, and so is a label that starts with a combining mark or mixes right-to-left
    characters with left-to-right letters or digits (the IDNA bidi rule, simplified)."""
    if unicodedata.normalize("NFKC", host).lower() != host:
        return False
    for label in host.split("."):
        if label and unicodedata.category(label[0])[0] == "M":
            return False
        if any(map(_rtl, label)) and (
            any(not _rtl(c) and c.isalnum() for c in label)  # mixed directions
            or unicodedata.category(label[0])[0] != "L"  # it starts with a letter
            or unicodedata.category(label[-1])[0] not in "LMN"  # and ends in one, or a digit
        ):
            return False
    return True


def _rtl(char: str) -> bool:
    """A character of the right-to-left blocks (Hebrew, Arabic, Syriac, Thaana, N'Ko...)."""
    code = ord(char)
    return (
        0x590 <= code <= 0x8FF
        or 0xFB1D <= code <= 0xFDFF
        or 0xFE70 <= code <= 0xFEFF
        or 0x10800 <= code <= 0x10FFF
        or 0x1E800 <= code <= 0x1EFFF
    )


def _idn_char(char: str) -> bool:
    """ASCII (the forbidden code points are refused apart), or a letter, mark or digit."""
    return char.isascii() or unicodedata.category(char)[0] in "LMN"


def _ipv4(parts: list[str]) -> bool:
    """The WHATWG IPv4 parser: up to 4 parts, decimal, 0x hex or 0 octal, each in range."""
    if not 1 <= len(parts) <= 4:
        return False
    numbers = []
    for part in parts:
        if not _IPV4_PART.fullmatch(part):
            return False
        if part[:2].lower() == "0x":
            numbers.append(int(part[2:] or "0", 16))
        elif len(part) > 1 and part[0] == "0":
            if any(c in "89" for c in part):
                return False
            numbers.append(int(part, 8))
        else:
            numbers.append(int(part))
    if any(number > 255 for number in numbers[:-1]):
        return False
    return numbers[-1] < 1 << (8 * (5 - len(numbers)))


#: How many characters of a field `render_record` shows inline: the rest of a longer one
#: (a 300,000-character title) is cut, the whole value in the element's `title`.
FIELD_LIMIT = 160
#: The same for a badge's label, which holds a review's outcome.
LABEL_LIMIT = 60
#: How many characters of a cut label's end are kept: a review's " (signed)".
LABEL_END = 12


def render_record(
    record: Mapping[str, Any], *, marker: str | None = None, computed_at: str | None = None
) -> str:
    """A record as an HTML fragment: every field escaped, links only for http(s) URLs,
    nothing that loads a remote resource.

    The badges come right after the title, and every field shown before them or inside one
    is cut at `FIELD_LIMIT` (`LABEL_LIMIT` for a label) characters with the whole value in
    a `title` attribute: no field's length can push a badge out of sight, with or without a
    style sheet. The badges' details, the description and the text follow, whole."""
    node, package = record["node"], record["package"]
    e = _escape
    title = node.get("title") or node["path"]
    parts = [f'<article class="source" data-ref="{e(node["ref"])}">', "<header>"]
    if marker:
        parts.append(f"{_cut('span', 'marker', marker)} ")
    parts.append(f"{_cut('h3', 'title', title)}</header>")
    badges = trust_badges(record)
    parts.append('<ul class="badges">')
    parts += [
        _cut("li", f"badge {b.tone}", b.label, LABEL_LIMIT, f' data-badge="{b.key}"', LABEL_END)
        for b in badges
    ]
    parts.append("</ul>")
    version = f"version {package['version']}"
    parts.append(
        f'<p class="package">{_cut("span", "id", package["id"])} '
        f"{_cut('span', 'version', version)}</p>"
    )
    parts.append(f'<p class="ref">{_cut("code", "", node["ref"])}</p>')
    parts.append('<ul class="trust-details">')  # what each badge means, as visible text
    parts += [f'<li data-detail="{b.key}">{e(b.detail)}</li>' for b in badges]
    parts.append("</ul>")
    if computed_at:
        parts.append(f'<p class="computed-at">Trust as of {e(computed_at)}</p>')
    if node.get("description"):
        parts.append(f'<p class="description">{e(node["description"])}</p>')
    evidence = record.get("evidence") or ()
    if evidence:
        parts.append('<ul class="evidence">')
        parts += [f"<li>{_evidence_html(entry)}</li>" for entry in evidence]
        parts.append("</ul>")
    if "text" in record:
        parts.append(
            f'<details><summary>Text</summary><pre class="text">{e(record["text"])}</pre></details>'
        )
    parts.append("</article>")
    return "".join(parts)


def _cut(
    tag: str, cls: str, value: object, limit: int = FIELD_LIMIT, attrs: str = "", keep_end: int = 0
) -> str:
    """`<tag class=cls>value</tag>`, the value cut to `limit` characters with an ellipsis
    before its last `keep_end` ones, and whole in `title`, if it is longer."""
    text = str(value)
    classes = f' class="{cls}"' if cls else ""
    if len(text) > limit:
        attrs += f' title="{_escape(text)}"'
        text = text[: limit - keep_end] + "\u2026" + (text[-keep_end:] if keep_end else "")
    return f"<{tag}{classes}{attrs}>{_escape(text)}</{tag}>"


def _evidence_html(entry: Mapping[str, Any]) -> str:
    source = entry.get("source") or {}
    name = source.get("title") or source.get("id") or "source"
    url = safe_url(source.get("url")) or safe_url(source.get("resource"))
    if url:
        attrs = f' href="{_escape(url)}" rel="noopener noreferrer nofollow"'
        label = _cut("a", "", name, attrs=attrs)
    else:
        label = _cut("span", "source-name", name)
    exact = (entry.get("selector") or {}).get("exact")
    quote = f" {_cut('q', '', exact)}" if exact else ""
    matched = entry.get("matched")
    state = "matched" if matched is True else "not matched" if matched is False else "not checked"
    note = f" {_cut('span', 'note', entry['note'])}" if entry.get("note") else ""
    return f'{label}{quote} <span class="evidence-{state.replace(" ", "-")}">{state}</span>{note}'


def _escape(value: object) -> str:
    return html.escape(str(value), quote=True)
