"""A Python client: ask an AG-UI service one question; print the answer and its sources.

    python examples/langgraph/app.py &          # any service with citations on
    python examples/client.py "Do I need to register my hives?"
    python examples/client.py --url http://127.0.0.1:8000/run "How do I treat varroa mites?"

The events are read with `moca_agui.client`, as the spec's client rules say: citations
attach to the assistant message they name, and trust is shown as the Reader contract
says. Record fields are data: control characters are not printed as they are.
"""

from __future__ import annotations

import argparse
import json
import uuid

import httpx

from moca_agui.client import Conversation, trust_badges


def ask(url: str, question: str) -> Conversation:
    """POST one user message to the AG-UI endpoint and read the whole event stream."""
    body = {
        "threadId": f"thread-{uuid.uuid4().hex[:8]}",
        "runId": f"run-{uuid.uuid4().hex[:8]}",
        "state": {},
        "messages": [{"id": f"user-{uuid.uuid4().hex[:8]}", "role": "user", "content": question}],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }
    conversation = Conversation()
    headers = {"accept": "text/event-stream"}
    with httpx.stream("POST", url, json=body, headers=headers, timeout=60) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            if line.startswith("data: "):
                conversation.feed(json.loads(line.removeprefix("data: ")))
    return conversation


def printable(text: str) -> str:
    return "".join(c if c.isprintable() or c == "\n" else "\N{REPLACEMENT CHARACTER}" for c in text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("question")
    parser.add_argument("--url", default="http://127.0.0.1:8000/", help="the AG-UI endpoint (POST)")
    args = parser.parse_args()
    for message in ask(args.url, args.question).messages():
        if not message.text:  # e.g. a message that only called tools
            continue
        print(printable(message.text))
        if message.citations is None:  # no moca.citations event for this message
            continue
        if not message.citations:
            print("\nNo sources cited.")
            continue
        print(f"\nSources (trust as of {message.computed_at}):")
        for citation in message.citations:
            title = citation.record["node"].get("title", "")
            badges = ", ".join(badge.label for badge in trust_badges(citation.record))
            print(printable(f"  {citation.marker or '*'} {title}  {citation.ref}\n      {badges}"))


if __name__ == "__main__":
    main()
