"""`make_cases.py` writes the committed corpus exactly: a scenario changed without its
cases rewritten (or a case edited by hand) fails here."""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import pytest
from make_cases import CASES, write_cases

#: The corpus is written with ag-ui-protocol 1.x's events (content parts in a result).
WRITTEN_ON_1X = int(version("ag-ui-protocol").split(".")[0]) >= 1


@pytest.mark.skipif(
    not WRITTEN_ON_1X, reason="the corpus is written on ag-ui-protocol 1.x: `nox -s tests`"
)
def test_make_cases_writes_the_committed_cases(tmp_path: Path) -> None:
    written = write_cases(tmp_path)
    committed_names = sorted(path.name for path in CASES.glob("*.json"))
    assert sorted(path.name for path in written) == committed_names
    for path in written:
        committed = (CASES / path.name).read_text(encoding="utf-8")
        assert path.read_text(encoding="utf-8") == committed, f"{path.name} differs"
