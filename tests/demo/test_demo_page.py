"""The demo's chat page in headless Chromium: sources, badges, links, and hostile records
rendered inert. Keeps a screenshot at artifacts/demo-page.png (the README names it).

Needs Debian's `chromium` and `chromium-driver` (`.ci/run` installs them). Outside CI
the test is skipped without them; in CI (env CI set) it fails.
"""

from __future__ import annotations

import asyncio
import copy
import os
import re
import shutil
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import uvicorn

import moca_agui
from moca_agui.client import Conversation, safe_url, trust_badges
from moca_agui.demo.frameworks.ag_ui import build_app
from moca_agui.demo.reader import DemoReader, load_records
from moca_agui.demo.server import demo_app
from support import ROOT, hostile_record

SCREENSHOT = ROOT / "artifacts/demo-page.png"
CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")
HANDBOOK = "https://example.org/moca/fernhollow-apiary@3.0.0#"

try:
    from selenium import webdriver
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.remote.webelement import WebElement
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # pragma: no cover - the test extra has selenium
    webdriver = None  # type: ignore[assignment]

_MISSING = (
    "selenium (pip install -e '.[test]')" if webdriver is None
    else None if CHROMIUM and CHROMEDRIVER
    else "chromium and chromium-driver (apt-get install -y chromium chromium-driver)"
)  # fmt: skip
if _MISSING:
    if os.environ.get("CI"):
        pytest.fail(f"the browser test needs {_MISSING}", pytrace=False)
    pytest.skip(f"the browser test needs {_MISSING}", allow_module_level=True)

RECORDS = [*load_records()[1], hostile_record()]
BY_REF = {r["node"]["ref"]: r for r in RECORDS}


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    """The demo app (bare SDK) over the demo records plus a hostile one, on 127.0.0.1."""
    today = datetime(2026, 11, 30, 9, tzinfo=UTC)  # every trust state of the records holds
    app = demo_app(build_app(DemoReader(RECORDS, clock=lambda: today)))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive(), "the demo server did not start"
        threading.Event().wait(0.02)
    yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM  # type: ignore[assignment]
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--window-size=1400,1800", "--disable-gpu"):  # fmt: skip
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = webdriver.ChromeService(executable_path=CHROMEDRIVER)
    driver = webdriver.Chrome(options=options, service=service)
    try:
        yield driver
    finally:
        driver.quit()


def ask(browser: WebDriver, base_url: str, question: str) -> WebElement:
    """Load the page, ask `question`, and return the answer's sources section."""
    browser.get(base_url + "/")
    field = browser.find_element(By.ID, "question")
    field.clear()
    field.send_keys(question)
    browser.find_element(By.ID, "send").click()
    WebDriverWait(browser, 20).until(
        lambda b: (
            b.find_element(By.ID, "status").text == "Done."
            and b.find_elements(By.CSS_SELECTOR, ".answer-sources")
        )
    )
    (section,) = browser.find_elements(By.CSS_SELECTOR, ".answer-sources")
    return section


def save_whole_page(browser: WebDriver, path: str) -> None:
    """A screenshot of the whole page, not just the window: the window is made as tall as
    the document first, and every badge must be inside it."""
    size = browser.get_window_size()
    chrome = browser.execute_script("return window.outerHeight - window.innerHeight")
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(size["width"], height + chrome)
    lowest = browser.execute_script(
        """return Math.max(...[...document.querySelectorAll('.badge')].map(
             (b) => b.getBoundingClientRect().bottom)) - window.innerHeight"""
    )
    assert lowest <= 0, f"a badge is {lowest}px below the screenshot"
    browser.save_screenshot(path)
    browser.set_window_size(size["width"], size["height"])


def badges_shown(source: WebElement) -> list[tuple[str, str, str]]:
    """Each badge's key, label and detail, as the page shows them (visible text only)."""
    badges = source.find_elements(By.CSS_SELECTOR, ".badges li")
    details = source.find_elements(By.CSS_SELECTOR, ".trust-details li")
    assert [d.get_attribute("data-detail") for d in details] == [
        b.get_attribute("data-badge") for b in badges
    ]
    assert all(d.is_displayed() for d in details)
    return [
        (badge.get_attribute("data-badge") or "", badge.text, detail.text)
        for badge, detail in zip(badges, details, strict=True)
    ]


def test_sources_panel_shows_every_source_with_its_trust(browser: WebDriver, base_url: str) -> None:
    section = ask(browser, base_url, "What does the handbook cover?")
    sources = section.find_elements(By.CSS_SELECTOR, "article.source")
    refs = [s.get_attribute("data-ref") for s in sources]
    assert refs == [
        *(HANDBOOK + p for p in ["autumn-feeding.md", "drought-watering-order.md",
          "hive-placement.md", "hive-registration.md", "queen-marking.md", "smoker-fuel.md",
          "swarm-collection.md", "varroa-treatment.md"]),
        "https://example.org/moca/fernhollow-swarm-leaflet@1.2.0#swarm-calls.md",
    ]  # fmt: skip
    for source in sources:
        record = BY_REF[source.get_attribute("data-ref") or ""]
        expected = [(b.key, b.label, b.detail) for b in trust_badges(record)]
        assert badges_shown(source) == expected  # the page and moca_agui.client agree
        assert source.find_element(By.CSS_SELECTOR, ".title").text == record["node"]["title"]
        package = source.find_element(By.CSS_SELECTOR, ".package").text
        assert package == f"{record['package']['id']} version {record['package']['version']}"
    computed_at = section.find_element(By.CSS_SELECTOR, ".computed-at").text
    assert re.fullmatch(r"Trust as of \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", computed_at)

    shown = {s.get_attribute("data-ref"): [k for k, _, _ in badges_shown(s)] for s in sources}
    placement = shown[HANDBOOK + "hive-placement.md"]
    assert "declared-verification" in placement and "attested-review" not in placement
    flags = {"varroa-treatment.md": "stale", "autumn-feeding.md": "contested",
             "drought-watering-order.md": "not-in-force", "queen-marking.md": "draft",
             "smoker-fuel.md": "deprecated"}  # fmt: skip
    for path, flag in flags.items():
        assert flag in shown[HANDBOOK + path]
    leaflet = shown["https://example.org/moca/fernhollow-swarm-leaflet@1.2.0#swarm-calls.md"]
    assert leaflet == ["superseded", "unsigned-package"]

    # each marker or ref in the answer links to its source in the panel
    links = browser.find_elements(By.CSS_SELECTOR, ".message.assistant a.cite")
    targets = {}
    for link in links:
        target = (link.get_attribute("href") or "").split("#", 1)[1]
        source = browser.find_element(By.ID, target)
        targets[link.text] = source.get_attribute("data-ref")
    assert targets["[1]"] == HANDBOOK + "autumn-feeding.md"
    assert targets[HANDBOOK + "smoker-fuel.md"] == HANDBOOK + "smoker-fuel.md"
    assert len(links) == 9
    # evidence links: only http(s)
    hrefs = [a.get_attribute("href") for a in section.find_elements(By.CSS_SELECTOR, ".evidence a")]
    assert hrefs == ["https://example.org/fernhollow/neighbours-guide.html"]
    SCREENSHOT.parent.mkdir(exist_ok=True)
    save_whole_page(browser, str(SCREENSHOT))


def test_an_invented_ref_in_the_answer_is_not_a_link(browser: WebDriver, base_url: str) -> None:
    section = ask(browser, base_url, "How do I treat varroa mites?")
    answer = browser.find_element(By.CSS_SELECTOR, ".message.assistant").text
    invented = "https://example.org/moca/fernhollow-apiary@2.1.0#varroa-treatment.md"
    assert invented in answer
    links = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "a.cite")]
    assert links == [HANDBOOK + "varroa-treatment.md"]
    assert len(section.find_elements(By.CSS_SELECTOR, "article.source")) == 1


def test_a_hostile_record_renders_inert(browser: WebDriver, base_url: str) -> None:
    section = ask(browser, base_url, "What is on the notice board?")
    (source,) = section.find_elements(By.CSS_SELECTOR, "article.source")
    hostile = hostile_record()
    assert source.find_element(By.CSS_SELECTOR, ".title").text == hostile["node"]["title"]
    assert (
        source.find_element(By.CSS_SELECTOR, ".description").text == hostile["node"]["description"]
    )
    text = browser.execute_script(
        "return document.querySelector('article.source pre.text').textContent"
    )
    assert text == hostile["text"]
    page: dict[str, Any] = browser.execute_script(
        """return {
            pwned: window.__pwned === undefined ? null : String(window.__pwned),
            scripts: [...document.scripts].map((s) => s.src),
            images: document.images.length,
            hrefs: [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')),
            handlers: [...document.querySelectorAll('*')].flatMap(
                (e) => [...e.attributes].map((a) => a.name)).filter((n) => n.startsWith('on')),
            resources: performance.getEntriesByType('resource').map((r) => r.name),
        }"""
    )
    assert page["pwned"] is None
    severe = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert severe == []  # no failed request (a favicon 404 was one)
    assert page["scripts"] == [base_url + "/client.js"]
    assert page["images"] == 0
    assert page["handlers"] == []
    assert all(h.startswith(("#", "https://", "http://")) for h in page["hrefs"])
    assert [h for h in page["hrefs"] if not h.startswith("#")] == ["https://example.org/notices"]
    assert all(url.startswith(base_url) for url in page["resources"])  # nothing remote loaded
    answer = browser.find_element(By.CSS_SELECTOR, ".message.assistant").text
    assert "<script>" in answer  # the model quoted the title: shown as text too
    save_whole_page(browser, str(SCREENSHOT.with_name("demo-page-hostile.png")))


def test_events_a_client_must_ignore_are_ignored(browser: WebDriver, base_url: str) -> None:
    ask(browser, base_url, "Do I need to register my hives?")
    message_id = browser.find_element(By.CSS_SELECTOR, ".message.assistant").get_attribute(
        "data-message-id"
    )
    record = BY_REF[HANDBOOK + "smoker-fuel.md"]
    browser.execute_script(
        """const [messageId, record] = arguments;
        const custom = (value, name = 'moca.citations') =>
          handleEvent({type: 'CUSTOM', name, value});
        custom({version: 2, messageId, citations: [{record}]});
        custom({version: 1, messageId: 'not-a-message', citations: [{record}]});
        custom({version: 1, messageId, citations: [{record}]});  // a second event
        custom({version: 1, messageId, citations: [{record}]}, 'acme.sources');""",
        message_id,
        record,
    )
    sections = browser.find_elements(By.CSS_SELECTOR, ".answer-sources")
    assert len(sections) == 1
    refs = [
        s.get_attribute("data-ref") for s in sections[0].find_elements(By.CSS_SELECTOR, "article")
    ]
    assert refs == [HANDBOOK + "hive-registration.md", HANDBOOK + "hive-placement.md"]


def test_invalid_records_are_skipped_and_an_empty_list_says_no_sources(
    browser: WebDriver, base_url: str
) -> None:
    browser.get(base_url + "/")
    bad = {**BY_REF[HANDBOOK + "smoker-fuel.md"], "trust": {"status": "stable"}}
    good = BY_REF[HANDBOOK + "queen-marking.md"]
    browser.execute_script(
        """const [bad, good] = arguments;
        for (const id of ['m1', 'm2']) {
          handleEvent({type: 'TEXT_MESSAGE_START', messageId: id, role: 'assistant'});
          handleEvent({type: 'TEXT_MESSAGE_CONTENT', messageId: id, delta: 'See [1].'});
          handleEvent({type: 'TEXT_MESSAGE_END', messageId: id});
        }
        const citations = [{record: bad}, {marker: '[1]', record: good}];
        handleEvent({type: 'CUSTOM', name: 'moca.citations',
                     value: {version: 1, messageId: 'm1', citations}});
        handleEvent({type: 'CUSTOM', name: 'moca.citations',
                     value: {version: 1, messageId: 'm2', citations: []}});""",
        bad,
        good,
    )
    first, second = browser.find_elements(By.CSS_SELECTOR, ".answer-sources")
    refs = [a.get_attribute("data-ref") for a in first.find_elements(By.CSS_SELECTOR, "article")]
    assert refs == [good["node"]["ref"]]
    assert second.find_element(By.CSS_SELECTOR, ".no-sources").text == (
        "No sources from the loaded packages."
    )
    warnings = [
        entry["message"] for entry in browser.get_log("browser") if "skipped" in entry["message"]
    ]
    assert any("skipped citations[0], invalid record (trust.declaredVerified: missing)" in w
               for w in warnings)  # fmt: skip


def test_an_answer_only_a_snapshot_carries_gets_its_sources(
    browser: WebDriver, base_url: str
) -> None:
    """A model that does not stream: the answer's text arrives in MESSAGES_SNAPSHOT only."""
    browser.get(base_url + "/")
    good = BY_REF[HANDBOOK + "queen-marking.md"]
    browser.execute_script(
        """const [good] = arguments;
        handleEvent({type: 'MESSAGES_SNAPSHOT', messages: [
          {id: 'u1', role: 'user', content: 'Queens?'},
          {id: 'a0', role: 'assistant', toolCalls: []},
          {id: 's1', role: 'assistant', content: 'Mark the queen [1].'}]});
        for (const messageId of ['s1', 'a0', 'u1']) {
          handleEvent({type: 'CUSTOM', name: 'moca.citations',
                       value: {version: 1, messageId, citations: [{marker: '[1]', record: good}]}});
        }""",
        good,
    )
    (answer,) = browser.find_elements(By.CSS_SELECTOR, ".message.assistant")
    assert answer.get_attribute("data-message-id") == "s1"
    assert answer.find_element(By.CSS_SELECTOR, ".text").text == "Mark the queen [1]."
    (section,) = browser.find_elements(By.CSS_SELECTOR, ".answer-sources")
    refs = [a.get_attribute("data-ref") for a in section.find_elements(By.CSS_SELECTOR, "article")]
    assert refs == [good["node"]["ref"]]
    assert [a.text for a in answer.find_elements(By.CSS_SELECTOR, "a.cite")] == ["[1]"]


def test_the_page_computes_badges_as_moca_agui_does(browser: WebDriver, base_url: str) -> None:
    browser.get(base_url + "/")
    review = {"reviewer": "human:r", "reviewedAt": "2026-01-01", "signer": "key:k"}
    records = copy.deepcopy(RECORDS)
    records[0]["trust"]["attestedReviews"] = [
        {**review, "outcome": outcome} for outcome in ("rejected", "Approved", "accurate", "meh")
    ]
    shown = browser.execute_script("return arguments[0].map(trustBadges)", records)
    for record, badges in zip(records, shown, strict=True):
        assert badges == [
            {"key": b.key, "label": b.label, "tone": b.tone, "detail": b.detail}
            for b in trust_badges(record)
        ]
    tones = [(b["label"], b["tone"]) for b in shown[0] if b["key"] == "attested-review"]
    assert tones == [
        ("Reviewed: rejected (signed)", "warning"), ("Reviewed: Approved (signed)", "good"),
        ("Reviewed: accurate (signed)", "good"), ("Reviewed: meh (signed)", "warning"),
    ]  # fmt: skip


def test_chunks_are_read_as_moca_agui_reads_them(browser: WebDriver, base_url: str) -> None:
    """A TEXT_MESSAGE_CHUNK may leave out messageId: it continues the chunked message until
    another event; chunks of a user message are not an answer."""
    browser.get(base_url + "/")
    events: list[dict[str, Any]] = [
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "c1", "role": "assistant", "delta": "Hel"},
        {"type": "TEXT_MESSAGE_CHUNK", "delta": "lo [1]."},
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "u1", "role": "user", "delta": "Hi"},
        {"type": "TEXT_MESSAGE_CHUNK", "delta": " there"},
        {"type": "STEP_FINISHED", "stepName": "answer"},
        {"type": "TEXT_MESSAGE_CHUNK", "delta": "orphan"},  # no message to continue
        {"type": "CUSTOM", "name": "moca.citations", "value": {"version": 1, "messageId": "c1",
         "citations": [{"marker": "[1]", "record": BY_REF[HANDBOOK + "queen-marking.md"]}]}},
    ]  # fmt: skip
    browser.execute_script("arguments[0].forEach(handleEvent)", events)
    shown = [
        (m.get_attribute("data-message-id"), m.find_element(By.CSS_SELECTOR, ".text").text)
        for m in browser.find_elements(By.CSS_SELECTOR, ".message.assistant")
    ]
    conversation = Conversation()
    for event in events:
        conversation.feed(event)
    assert shown == [(m.id, m.text) for m in conversation.messages()] == [("c1", "Hello [1].")]
    assert [a.text for a in browser.find_elements(By.CSS_SELECTOR, "a.cite")] == ["[1]"]


def test_the_page_links_the_urls_moca_agui_links(browser: WebDriver, base_url: str) -> None:
    browser.get(base_url + "/")
    urls = [
        "https://example.org/a?b=c#d", "HTTP://example.org", "javascript:alert(1)",
        " https://example.org", "https://example.org/a\x7fb", "https://example.org/\x00",
        "https://example.org/caf\u00e9", "//example.org", "https://", 'https://e.org/"x', None,
    ]  # fmt: skip
    linked = browser.execute_script("return arguments[0].map(safeUrl)", urls)
    assert linked == [safe_url(url) for url in urls]
    assert linked.count(None) == 8


def _broken_records() -> list[dict[str, Any]]:
    """One record per schema rule broken (and a few valid variants)."""
    base = BY_REF[HANDBOOK + "hive-placement.md"]
    changes: list[tuple[str, Any]] = [
        ("package.digest", "sha256:ABC"), ("package.signed", "yes"), ("package.extra", 1),
        ("package.signers", ["a", 2]), ("node.ref", ""), ("node.tags", "bees"),
        ("node.digest", "md5:00"), ("node.colour", "red"), ("span", {"start": -1, "end": 2}),
        ("span", {"start": 1.5, "end": 2}), ("span", {"start": 1}), ("text", 5),
        ("trust.status", "final"), ("trust.stale", None), ("trust.generated", {"at": "x"}),
        ("trust.declaredVerified", [{"at": "x"}]), ("trust.attestedReviews", [{"reviewer": "r"}]),
        ("trust.supersededBy", "x"), ("trust.colour", "red"), ("evidence", [{"note": "x"}]),
        ("evidence", [{"source": {}, "matched": "yes"}]), ("concepts", ["not an iri"]),
        ("concepts", ["https://a b"]), ("audience", 1), ("profiles", [1]), ("score", "1"),
        ("retrieval", {"via": "guess"}), ("retrieval", {"via": "search", "x": 1}), ("extra", 1),
        # valid variants
        ("span", {"start": 1.0, "end": 2}), ("trust.generated", None), ("score", 0.5),
        ("evidence", [{"source": {}, "anything": 1}]),
        ("retrieval", {"via": "related", "from": "x"}),
        ("trust.declaredVerified", [{"by": "x", "extra": 1}]),
    ]  # fmt: skip
    records = []
    for path, value in changes:
        changed = copy.deepcopy(base)
        *parents, key = path.split(".")
        target = changed
        for parent in parents:
            target = target[parent]
        target[key] = value
        records.append(changed)
    return [base, *records, {"package": {}}, [], "record"]  # type: ignore[list-item]


def test_the_page_validates_records_as_moca_agui_does(browser: WebDriver, base_url: str) -> None:
    browser.get(base_url + "/")
    records = _broken_records()
    problems = browser.execute_script("return arguments[0].map(recordProblem)", records)
    for record, problem in zip(records, problems, strict=True):
        try:
            moca_agui.as_record(record)
            valid = True
        except moca_agui.InvalidRecord:
            valid = False
        assert (problem is None) is valid, (record, problem)
