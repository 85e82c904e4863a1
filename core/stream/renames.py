"""Which of a run's answers a MESSAGES_SNAPSHOT renamed: the same text, another id.

AG-UI emitters stream an answer under one id and may name it otherwise in a later
snapshot (LLM completion ids against their own message ids); `@ag-ui/client` then holds
the snapshot's id only. An answer is matched to a snapshot message by its whole text,
and only where that text names one answer the snapshot dropped and one snapshot message
the run has no text of: when in doubt, no match, and the answer is not cited.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ..run import CitationRun

__all__ = ["renames"]


def renames(
    run: CitationRun,
    shown: Sequence[tuple[str, object]],
    ids: Collection[str],
    open_ids: Collection[str],
) -> list[tuple[str, str]]:
    """(old id, snapshot id) for each of the run's ended answers the snapshot names
    otherwise. `shown`: the snapshot's assistant messages (id, content), `ids` theirs."""
    dropped: dict[str, list[str]] = {}
    for message_id in run.messages.with_text():
        if message_id not in ids and message_id not in open_ids:
            dropped.setdefault(run.messages.text(message_id).strip(), []).append(message_id)
    if not dropped:
        return []
    named: dict[str, list[str]] = {}
    for message_id, content in shown:
        text = content.strip() if isinstance(content, str) else None
        if text is not None and text in dropped and not run.messages.text(message_id):
            named.setdefault(text, []).append(message_id)
    return [
        (dropped[text][0], new[0])
        for text, new in named.items()
        if len(new) == 1 and len(dropped[text]) == 1
    ]
