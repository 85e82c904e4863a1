"""The demo's example packages and the records a Reader produced for them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

import moca_agui
import moca_agui.adapter
from moca_agui.demo.reader import load_records
from support import ROOT, record_validator

KB = ROOT / "examples/demo/kb"
PACKAGES = {
    "https://example.org/moca/fernhollow-apiary": KB / "fernhollow-apiary",
    "https://example.org/moca/fernhollow-swarm-leaflet": KB / "swarm-leaflet",
}
COMPUTED_AT, RECORDS = load_records()


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def node_file(record: dict[str, Any]) -> Path:
    return PACKAGES[record["package"]["id"]] / "content" / record["node"]["path"]


def by_path(path: str) -> dict[str, Any]:
    (found,) = [r for r in RECORDS if r["node"]["path"] == path]
    return found


def test_every_content_file_has_exactly_one_record() -> None:
    files = sorted(p for root in PACKAGES.values() for p in (root / "content").glob("*.md"))
    assert sorted(node_file(r) for r in RECORDS) == files
    assert 6 <= len(list((KB / "fernhollow-apiary/content").glob("*.md"))) <= 10


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["node"]["path"])
def test_record_is_valid_against_the_official_schema(record: dict[str, Any]) -> None:
    record_validator().validate(record)
    assert moca_agui.adapter.as_record(record) == record


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["node"]["path"])
def test_record_matches_its_node_file(record: dict[str, Any]) -> None:
    data = node_file(record).read_bytes()
    manifest = json.loads((node_file(record).parents[1] / "moca.json").read_text("utf-8"))
    package, node = record["package"], record["node"]
    assert node["digest"] == sha256(data)
    assert (package["id"], package["version"]) == (manifest["id"], manifest["version"])
    assert node["id"] == f"{package['id']}#{node['path']}"
    assert node["ref"] == f"{package['id']}@{package['version']}#{node['path']}"
    span = record["span"]
    assert data[span["start"] : span["end"]].decode("utf-8") == record["text"]
    assert data[: span["start"]].decode("utf-8").endswith("\n---\n")  # the body: after front matter


@pytest.mark.parametrize("package_id", PACKAGES)
def test_package_digest_covers_every_file_of_the_package(package_id: str) -> None:
    # The demo's own stand-in for the package digest (kb/README.md says how it is made).
    root = PACKAGES[package_id]
    lines = "".join(
        f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.relative_to(root).as_posix()}\n"
        for p in sorted(root.rglob("*"))
        if p.is_file()
    )
    digests = {r["package"]["digest"] for r in RECORDS if r["package"]["id"] == package_id}
    assert digests == {sha256(lines.encode())}


@pytest.mark.parametrize(
    "record", [r for r in RECORDS if "evidence" in r], ids=lambda r: r["node"]["path"]
)
def test_evidence_matched_says_whether_the_quote_is_in_the_source(record: dict[str, Any]) -> None:
    for evidence in record["evidence"]:
        resource = evidence["source"]["resource"]
        if resource.startswith(("http://", "https://")):
            assert "matched" not in evidence  # outside the package: not checked
            continue
        source = (node_file(record).parent / resource).resolve().read_text("utf-8")
        assert evidence["matched"] is (evidence["selector"]["exact"] in source)


def test_between_them_the_records_show_every_trust_state() -> None:
    trust = {r["node"]["path"]: r["trust"] for r in RECORDS}
    assert trust["hive-registration.md"]["attestedReviews"]
    assert trust["hive-placement.md"]["declaredVerified"]
    assert not trust["hive-placement.md"]["attestedReviews"]
    assert trust["varroa-treatment.md"]["stale"] is True
    assert trust["swarm-calls.md"]["superseded"] is True
    assert trust["swarm-calls.md"]["supersededBy"] == ["https://example.org/moca/fernhollow-apiary"]
    assert trust["autumn-feeding.md"]["contested"] is True
    assert trust["autumn-feeding.md"]["contestedBy"]
    assert trust["drought-watering-order.md"]["inForce"] is False
    assert trust["queen-marking.md"]["status"] == "draft"
    assert trust["smoker-fuel.md"]["status"] == "deprecated"
    assert by_path("swarm-calls.md")["package"]["signed"] is False
    assert by_path("hive-registration.md")["package"]["signed"] is True
    matched = [e.get("matched") for e in by_path("hive-placement.md")["evidence"]]
    assert matched == [True, False, None]
    # each record shows one state, so a page shows each badge on its own
    plain = [p for p, t in trust.items() if t["status"] == "stable" and not t["stale"]
             and t["inForce"] and not t["superseded"] and not t["contested"]]  # fmt: skip
    assert sorted(plain) == ["hive-placement.md", "hive-registration.md", "swarm-collection.md"]


def test_computed_at_is_rfc3339_with_an_offset() -> None:
    assert COMPUTED_AT == "2026-11-29T09:00:00Z"
