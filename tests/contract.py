"""Where the tests find the MOCA contract: the reference Reader's captured answers and the
example event are test data of this repository (`tests/data/`, see its README); the
official record schema stays in the spec repository, a checkout of which `MOCA_SPEC_DIR`
names (default `../shared/moca-spec`). Without it the contract tests that read the schema
are skipped; with `CI` set they fail instead."""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
CAPTURES = DATA / "reference-reader"
EXAMPLE_EVENT = DATA / "support-kb-citations-event.reconstructed.json"
SPEC_DIR = Path(os.environ.get("MOCA_SPEC_DIR") or ROOT.parent / "shared" / "moca-spec")
CITATION_RECORD_SCHEMA = SPEC_DIR / "schemas" / "v1" / "citation-record.schema.json"
GET_SPEC = (
    "git clone --depth 1 --branch v0.6.0 https://github.com/openmoca/moca-spec "
    "and set MOCA_SPEC_DIR to it"
)


@cache
def official_record_schema() -> dict[str, Any] | None:
    """The official citation-record schema, or None when `MOCA_SPEC_DIR` has none."""
    if not CITATION_RECORD_SCHEMA.is_file():
        return None
    schema: dict[str, Any] = json.loads(CITATION_RECORD_SCHEMA.read_text(encoding="utf-8"))
    return schema


def required_record_schema() -> dict[str, Any]:
    """The official citation-record schema; the test is skipped without it (failed in CI)."""
    schema = official_record_schema()
    if schema is None:
        missing = f"no official record schema at {CITATION_RECORD_SCHEMA}: {GET_SPEC}"
        if os.environ.get("CI"):
            pytest.fail(f"{missing} (CI runs every contract test)")
        pytest.skip(missing)
    return schema
