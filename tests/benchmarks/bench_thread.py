"""Benchmark 11: what a run at turn T of a thread costs, beyond reading the thread.

Each turn reads 5 nodes (one full `moca_search`) and its answer (about 120 words) cites
them plus 3 of the thread's, by their default markers: those only `lookup` (async,
answering at once) can give a record of. A run at turn T gets the T-1 earlier turns in
`RunAgentInput.messages`, as a client sends them back. Printed, side by side in one run,
for turns 1, 10, 50, 200 and 1,000: reading the thread alone (`read_history`, what any
run that reads it does), the run cited with its thread (`cite(events, input=...)`) with
`lookup` and without, the rest (the run less the reading of its thread) and that rest
against turn 1's; the bare stream; and the floor of reading a thread: parse each earlier
Reader result once. Controls: turn 1's and turn 10's rest after parsing turn 1,000's earlier
results (untimed, unused by the run), which leaves the caches as reading that thread does
(turn 1's: its own work, so the caches alone; turn 10's: the work of turn 1,000's rest, 3
lookups and 8 citations); and turn 1,000's rest right after the same rest of another run of
its thread (untimed), which brings back into the caches what the rest uses and the reading
evicted.
`--against REV` measures an earlier core beside this one.

    python tests/benchmarks/bench_thread.py [--quick] [--against REV]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import logging
import statistics
import time
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput, RunFinishedEvent, RunStartedEvent
from pydantic_core import from_json
from workload import (
    core_at,
    cpu,
    machine,
    message,
    node_record,
    prose,
    ref,
    side_by_side,
    source,
    table,
    tool_call,
)

import moca_agui

logging.getLogger("moca_agui").setLevel(logging.ERROR)
TURNS = (1, 10, 50, 200, 1_000)
COLD = (10, 1_000)  # the control: this turn's rest after parsing that turn's thread
FIRST = 1  # the same control at turn 1: the caches alone, at turn 1's work
WARM = 1_000  # the control: this turn's rest after the rest of another run of its thread
NODES = 5  # read by each turn, and cited by its answer with 3 of the thread's

Variant = Callable[[], Any]


def found(turn: int) -> list[dict[str, Any]]:
    """The 5 records turn `turn`'s search returns."""
    return [node_record(f"turn-{turn}/node-{k}.md") for k in range(NODES)]


def cited_markers(turn: int) -> list[str]:
    """What turn `turn`'s answer cites by default marker: its own 5, then 3 of the thread's
    (the first, the middle and the last of the earlier turns' nodes)."""
    before = NODES * (turn - 1)
    own = [f"[{before + k}]" for k in range(1, NODES + 1)]
    return own + ([f"[{n}]" for n in (1, before // 2 + 1, before)] if turn > 1 else [])


def answer_words(turn: int) -> list[str]:
    """About 120 words, a marker after every 15th."""
    words = prose(120, turn)
    for at, marker in enumerate(cited_markers(turn)):
        words.insert(15 * (at + 1) + at, f"{marker} ")
    return words


def earlier_turn(n: int) -> list[dict[str, Any]]:
    """Turn `n` as a client sends it back: the question, the call, its result, the answer."""
    call = {"id": f"t{n}-c1", "type": "function",
            "function": {"name": "moca_search", "arguments": "{}"}}  # fmt: skip
    return [
        {"id": f"t{n}-u", "role": "user", "content": "How long is the refund window?"},
        {"id": f"t{n}-a", "role": "assistant", "toolCalls": [call]},
        {"id": f"t{n}-r1", "role": "tool", "toolCallId": f"t{n}-c1",
         "content": json.dumps({"query": "refund window", "results": found(n)}, indent=2)},
        {"id": f"t{n}-m", "role": "assistant", "content": "".join(answer_words(n))},
    ]  # fmt: skip


def thread_input(turn: int) -> RunAgentInput:
    messages = [m for n in range(1, turn) for m in earlier_turn(n)]
    messages.append({"id": "question", "role": "user", "content": "And for gifts?"})
    return RunAgentInput.model_validate(
        {"threadId": "t", "runId": "r", "state": {}, "messages": messages, "tools": [],
         "context": [], "forwardedProps": {}}
    )  # fmt: skip


def run_events(turn: int) -> list[BaseEvent]:
    """Turn `turn` itself: one search of 5 records, then the answer, a word a delta."""
    search = json.dumps({"query": "refund window", "results": found(turn)}, indent=2)
    return [
        RunStartedEvent(thread_id="t", run_id=f"run-{turn}"),
        *tool_call(f"t{turn}-c1", "moca_search", search),
        *message(f"t{turn}-m", answer_words(turn)),
        RunFinishedEvent(thread_id="t", run_id=f"run-{turn}"),
    ]


class Reader:
    """An async `lookup` answering the record of any node of the thread at once."""

    def __init__(self, turn: int) -> None:
        self.records = {ref(rec): rec for n in range(1, turn) for rec in found(n)}

    async def __call__(self, node_ref: str) -> dict[str, Any] | None:
        return self.records.get(node_ref)


#: CPU seconds of each variant's runs beyond reading their thread, by variant, per repeat
REST: dict[str, list[float]] = {}


def variants(turn: int, rounds: int, layers: list[tuple[str, ModuleType]]) -> dict[str, Variant]:
    given = thread_input(turn)
    events = run_events(turn)
    reader = Reader(turn)
    contents = [m.content for m in given.messages if m.role == "tool"]

    def cited(layer: ModuleType, lookup: Reader | None) -> Variant:
        async def run() -> None:
            for _ in range(rounds):
                async for _event in layer.cite(source(events), input=given, lookup=lookup):
                    pass

        return run

    def rest(
        name: str,
        layer: ModuleType,
        lookup: Reader | None,
        before: Callable[[], None] | None = None,
        *,
        warmed: bool = False,
    ) -> Variant:
        """The same runs, each given a run that read its thread before: only the rest is
        timed, in the same process and round as the reading it leaves out (and as
        `before`, if given, and if `warmed` the rest of another run read the same way)."""
        options = layer.CitationOptions.from_kwargs(lookup=lookup)
        questions = [m.id for m in given.messages if m.role == "user"]
        adapter, streams, cite = (part(layer, name) for name in ("adapter",
                                  "stream.citation_stream", "stream.cite"))  # fmt: skip

        async def run() -> None:
            spent = 0.0
            for _ in range(rounds):
                citing = adapter.CitationRun(options)
                citing.read_history(given.messages)
                if before is not None:
                    before()
                if warmed:
                    other = adapter.CitationRun(options)
                    other.read_history(given.messages)
                    warm_up = streams.CitationStream(other, question_id=questions[-1])
                    async for _event in cite.cited(source(events), warm_up):
                        pass
                start = time.process_time()
                stream = streams.CitationStream(citing, question_id=questions[-1])
                async for _event in cite.cited(source(events), stream):
                    pass
                spent += time.process_time() - start
                # Freed here, untimed: freeing what reading the thread built is the
                # reading's cost (a run is freed when its last reference goes).
                del stream, citing
            REST.setdefault(name, []).append(spent / rounds)

        return run

    def reading(layer: ModuleType) -> Variant:
        adapter = part(layer, "adapter")

        async def run() -> None:
            for _ in range(rounds):
                adapter.CitationRun().read_history(given.messages)

        return run

    async def bare() -> None:
        for _ in range(rounds):
            async for _event in source(events):
                pass

    async def floor() -> None:
        for _ in range(rounds):
            for content in contents:
                from_json(content, cache_strings="keys")  # as a run reads it

    made: dict[str, Variant] = {f"turn {turn}, bare": bare, f"turn {turn}, floor": floor}
    for name, layer in layers:
        made[f"turn {turn}, {name}, reading"] = reading(layer)
        for way, lookup in (("lookup", reader), ("no lookup", None)):
            made[f"turn {turn}, {name}, {way}"] = cited(layer, lookup)
            rest_name = f"turn {turn}, {name}, {way}, rest"
            made[rest_name] = rest(rest_name, layer, lookup)
            if turn in (FIRST, COLD[0]) and name == "cite":
                cold_name = f"{rest_name}, cold"
                made[cold_name] = rest(cold_name, layer, lookup, before=parse(COLD[1]))
            if turn == WARM and name == "cite":
                made[f"{rest_name}, warmed"] = rest(f"{rest_name}, warmed", layer, lookup,
                                                    warmed=True)  # fmt: skip
    return made


def parse(turn: int) -> Callable[[], None]:
    """Parse each earlier result of turn `turn`'s thread once (a thread no run reads)."""
    contents = [m.content for m in thread_input(turn).messages if m.role == "tool"]

    def run() -> None:
        for content in contents:
            from_json(content, cache_strings="keys")  # as a run reads it

    return run


def part(layer: ModuleType, name: str) -> ModuleType:
    """The module `name` of the core `layer` (this one or an earlier one)."""
    return importlib.import_module(f"{layer.__name__}.{name}")


@contextlib.contextmanager
def layers_to_measure(against: str | None) -> Iterator[list[tuple[str, ModuleType]]]:
    if against is None:
        yield [("cite", moca_agui)]
        return
    with core_at(against) as earlier:
        yield [("cite", moca_agui), (f"cite at {against}", earlier)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--against", help="an earlier git revision, measured beside this one")
    args = parser.parse_args()
    repeats, rounds = (5, 10) if args.quick else (15, 20)
    per_turn = {turn: max(2, rounds * 10 // max(turn, 10)) for turn in TURNS}
    print("## 11. A run that reads its thread\n")
    print(machine() + "\n")
    with layers_to_measure(args.against) as layers:
        made: dict[str, Variant] = {}
        for turn in TURNS:
            made.update(variants(turn, per_turn[turn], layers))
        times = side_by_side(made, repeats)
    rows = []

    def ms(name: str, turn: int) -> float:
        return cpu(times[f"turn {turn}, {name}"]) / per_turn[turn] * 1000

    def rest_ms(name: str, turn: int) -> float:
        return statistics.median(REST[f"turn {turn}, {name}, rest"]) * 1000

    for name, _ in layers:
        first = {way: rest_ms(f"{name}, {way}", 1) for way in ("lookup", "no lookup")}
        for turn in TURNS:
            results = turn - 1
            row: list[Any] = [name, turn, results, f"{ms(f'{name}, reading', turn):.2f}"]
            for way in ("lookup", "no lookup"):
                rest = rest_ms(f"{name}, {way}", turn)
                row += [f"{ms(f'{name}, {way}', turn):.2f}", f"{rest:.2f}"]
                row.append(f"**{rest / first[way]:.2f}x**")
            floor = ms("floor", turn) / results * 1000 if results else None
            row += [f"{ms('bare', turn):.2f}", f"{floor:.0f}" if floor is not None else "-"]
            rows.append(row)
    header = ["layer", "turn", "earlier results", "reading the thread (ms)",
              "run, lookup (ms)", "rest, lookup (ms)", "rest vs turn 1",
              "run, no lookup (ms)", "rest, no lookup (ms)", "rest vs turn 1",
              "bare (ms)", "floor per result (µs)"]  # fmt: skip
    print(table(header, rows))

    def after(turn: int, way: str, what: str) -> float:
        """A control's rest at `turn` (ms): after parsing (`cold`) or another rest (`warmed`)."""
        return statistics.median(REST[f"turn {turn}, cite, {way}, rest, {what}"]) * 1000

    warm, hot = COLD
    cold = []
    for way in ("lookup", "no lookup"):
        rest, then = rest_ms(f"cite, {way}", warm), after(warm, way, "cold")
        cold.append(
            f"{way}: {then:.2f} ms, {then / rest:.2f}x turn {warm}'s and "
            f"{then / rest_ms(f'cite, {way}', 1):.2f}x turn 1's (turn {hot:,}: "
            f"{rest_ms(f'cite, {way}', hot) / rest:.2f}x turn {warm}'s)"
        )
    print(
        f"\nTurn {warm}'s rest after parsing the {hot - 1:,} earlier results of turn {hot:,}'s "
        f"thread, which it does not read (untimed): {'; '.join(cold)}."
    )
    first = []
    for way in ("lookup", "no lookup"):
        then = after(FIRST, way, "cold")
        first.append(
            f"{way}: {then:.2f} ms, {then / rest_ms(f'cite, {way}', FIRST):.2f}x turn {FIRST}'s "
            f"(turn {hot:,}'s rest: "
            f"{rest_ms(f'cite, {way}', hot) / then:.2f}x this)"
        )
    print(
        f"\nTurn {FIRST}'s rest after parsing the same {hot - 1:,} results (untimed; its own "
        f"work, no lookup, 5 citations): {'; '.join(first)}."
    )
    warmed = []
    for way in ("lookup", "no lookup"):
        then = after(WARM, way, "warmed")
        warmed.append(f"{way}: {then:.2f} ms, {then / rest_ms(f'cite, {way}', 1):.2f}x turn 1's")
    print(
        f"\nTurn {WARM:,}'s rest right after the same rest of another run of its thread "
        f"(untimed, which brings back what the reading evicted): {'; '.join(warmed)}."
    )
    print(
        f"\nCPU medians of {repeats} interleaved repeats of {per_turn[1]} runs each "
        f"({', '.join(f'turn {t}: {per_turn[t]}' for t in TURNS[2:])}), per run. The rest: "
        "the same run given a run that read its thread before, timed without the reading."
    )


if __name__ == "__main__":
    main()
