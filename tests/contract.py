"""Where the tests find the MOCA contract: the reference Reader's captured answers and the
example event are test data of this repository (`tests/data/`, see its README); the
official record schema stays in the spec repository, a checkout of which `MOCA_SPEC_DIR`
names (default `../shared/moca-spec`; a relative path is read from the repository's root).
Without it the contract tests that read the schema are skipped; with `CI` set they fail
instead. The schema read must be the one of SPEC_COMMIT (its sha256 is checked)."""

from __future__ import annotations

import hashlib
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
#: `ROOT / path` is `path` when it is absolute; a relative one is read from the root.
SPEC_DIR = (ROOT / (os.environ.get("MOCA_SPEC_DIR") or "../shared/moca-spec")).resolve()
CITATION_RECORD_SCHEMA = SPEC_DIR / "schemas" / "v1" / "citation-record.schema.json"
#: The openmoca/moca-spec commit whose citation-record schema the tests hold the core to,
#: and that file's sha256 (tests/data/README.md).
SPEC_COMMIT = "4be7f173aa30f715fa817a7f2f53d50579346883"
SCHEMA_SHA256 = "ca81925d3868c82e3cc48625bf648ff6fa1a81325af76a1d52bf4395c0cdf395"
GET_SPEC = (
    "git clone https://github.com/openmoca/moca-spec ../moca-spec && git -C ../moca-spec "
    f"checkout {SPEC_COMMIT}, then set MOCA_SPEC_DIR=../moca-spec"
)


@cache
def official_record_schema() -> dict[str, Any] | None:
    """The official citation-record schema, or None when `MOCA_SPEC_DIR` has none."""
    if not CITATION_RECORD_SCHEMA.is_file():
        return None
    text = CITATION_RECORD_SCHEMA.read_bytes()
    if hashlib.sha256(text).hexdigest() != SCHEMA_SHA256:
        pytest.fail(
            f"{CITATION_RECORD_SCHEMA} is not the citation-record schema of moca-spec commit "
            f"{SPEC_COMMIT} (sha256 {SCHEMA_SHA256}): {GET_SPEC}",
            pytrace=False,
        )
    schema: dict[str, Any] = json.loads(text)
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
