"""The conformance corpus (`cases/*.json`), run by the Python core: the TypeScript
middleware runs the same cases (js/test/conformance.test.js). A case either fails is a bug
in that implementation. A `pending` case names a rule the core has yet to follow: it must
fail until it passes (strict), and then loses its mark."""

from __future__ import annotations

from typing import Any

import pytest
from corpus import cases, cited


def _param(case: dict[str, Any]) -> Any:
    pending = case.get("pending")
    marks = [pytest.mark.xfail(reason=pending, strict=True)] if pending else []
    return pytest.param(case, id=case["name"], marks=marks)


@pytest.mark.parametrize("case", [_param(case) for case in cases()])
async def test_case(case: dict[str, Any]) -> None:
    assert await cited(case) == case["expected"]


def test_every_case_is_named_once() -> None:
    names = [case["name"] for case in cases()]
    assert len(names) == len(set(names)) and len(names) >= 40
