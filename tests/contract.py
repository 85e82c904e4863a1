"""Where the tests find the shared contract beside the checkout (`../shared`): the spec,
the official schemas and the reference Reader's captured answers."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CAPTURES = SHARED / "reference-reader"
