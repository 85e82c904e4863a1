"""Benchmark 11: what reading a thread's earlier turns costs a run.

A run at turn T of a thread gets the T-1 earlier turns in `RunAgentInput.messages`, each
holding the realistic run's two Reader results (a 5-record `moca_search` and a
`moca_get_node`) and its answer; the run itself is benchmark 1's realistic run. Printed,
side by side: a run at turns 1, 10 and 50, cited with its thread (`cite(events,
input=...)`), against the same run cited without it, and the floor of what reading a
thread must do at the least: parse each earlier Reader result once.

    python tests/benchmarks/bench_thread.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Callable
from typing import Any

from ag_ui.core import RunAgentInput
from pydantic_core import from_json
from workload import cpu, machine, node_record, run_events, side_by_side, source, table

import moca_agui

logging.getLogger("moca_agui").setLevel(logging.ERROR)  # turn 1's sources, left out at turn 50
TURNS = (1, 10, 50)


def earlier_turn(n: int) -> list[dict[str, Any]]:
    """Turn `n` as a client sends it back: the question, the calls, their results, the answer."""
    found = [node_record(f"turn-{n}/node-{k}.md") for k in range(5)]
    read = node_record(f"turn-{n}/read.md")
    calls = [
        {"id": f"t{n}-c{i}", "type": "function", "function": {"name": name, "arguments": "{}"}}
        for i, name in ((1, "moca_search"), (2, "moca_get_node"))
    ]
    return [
        {"id": f"t{n}-u", "role": "user", "content": "How long is the refund window?"},
        {"id": f"t{n}-a", "role": "assistant", "toolCalls": calls},
        {"id": f"t{n}-r1", "role": "tool", "toolCallId": f"t{n}-c1",
         "content": json.dumps({"query": "refund window", "results": found}, indent=2)},
        {"id": f"t{n}-r2", "role": "tool", "toolCallId": f"t{n}-c2",
         "content": json.dumps(read, indent=2)},
        {"id": f"t{n}-m", "role": "assistant", "content": "It is 30 days [1]."},
    ]  # fmt: skip


def thread_input(turn: int) -> RunAgentInput:
    messages = [m for n in range(1, turn) for m in earlier_turn(n)]
    messages.append({"id": "question", "role": "user", "content": "And for gifts?"})
    return RunAgentInput.model_validate(
        {"threadId": "t", "runId": "r", "state": {}, "messages": messages, "tools": [],
         "context": [], "forwardedProps": {}}
    )  # fmt: skip


def cited(turn: int, with_thread: bool, rounds: int) -> Callable[[], Any]:
    given = thread_input(turn)
    events = run_events(0)

    async def run() -> None:
        for _ in range(rounds):
            input = given if with_thread else None
            async for _event in moca_agui.cite(source(events), input=input):
                pass

    return run


def floor(turn: int, rounds: int) -> Callable[[], Any]:
    """Parse each earlier Reader result once: the least a run that reads its thread does."""
    contents = [m["content"] for m in thread_input(turn).model_dump()["messages"]
                if m["role"] == "tool"]  # fmt: skip

    async def run() -> None:
        for _ in range(rounds):
            for content in contents:
                from_json(content)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    repeats, rounds = (5, 5) if args.quick else (15, 20)
    print("## 11. A run that reads its thread\n")
    print(machine() + "\n")
    variants: dict[str, Callable[[], Any]] = {}
    for turn in TURNS:
        variants[f"turn {turn}, cited with its thread"] = cited(
            turn, with_thread=True, rounds=rounds
        )
        variants[f"turn {turn}, cited without it"] = cited(turn, with_thread=False, rounds=rounds)
        variants[f"turn {turn}, floor"] = floor(turn, rounds)
    times = side_by_side(variants, repeats)
    rows = []
    base = cpu(times["turn 1, cited with its thread"])
    for turn in TURNS:
        results = 2 * (turn - 1)
        with_thread = cpu(times[f"turn {turn}, cited with its thread"])
        without = cpu(times[f"turn {turn}, cited without it"])
        floor_ms = cpu(times[f"turn {turn}, floor"]) / rounds * 1000
        added_ms = (with_thread - without) / rounds * 1000
        per_result = f"{added_ms / results * 1000:.0f}" if results else "-"
        floor_per = f"{floor_ms / results * 1000:.0f}" if results else "-"
        rows.append([turn, results, f"{with_thread / rounds * 1000:.2f}",
                     f"{without / rounds * 1000:.2f}", f"{added_ms:.2f}", per_result, floor_per,
                     f"{with_thread / base:.2f}x"])  # fmt: skip
    header = ["turn", "earlier Reader results", "run with thread (ms)", "run without (ms)",
              "added (ms)", "added per result (µs)", "floor per result (µs)",
              "vs turn 1"]  # fmt: skip
    print(table(header, rows))
    print(f"\nCPU medians of {repeats} repeats of {rounds} runs each, interleaved.")


if __name__ == "__main__":
    main()
