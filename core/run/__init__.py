"""The run: what one agent run's Reader returned and what its assistant wrote, resolved
into one `moca.citations` event per message."""

from .citation_run import CitationRun

__all__ = ["CitationRun"]
