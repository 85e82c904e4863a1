"""The demo's chat page in headless Chromium, built on the npm package's module file: each
answer's sources right under it, the newest in view, one bubble and one number per answer,
refs the service left out marked, readable dates, hostile records inert. Keeps screenshots
under artifacts/ (the README shows artifacts/demo-page.png).

Needs Debian's `chromium` and `chromium-driver` (`.ci/run` installs them). Outside CI
the test is skipped without them; in CI (env CI set) it fails.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from starlette.types import ASGIApp

from moca_agui.client import Conversation, render_record, trust_badges
from moca_agui.demo.reader import DemoReader, load_records
from moca_agui.demo.server import ask, demo_app, load_framework
from support import ROOT, hostile_record

ARTIFACTS = ROOT / "artifacts"
CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")
HANDBOOK = "https://example.org/moca/fernhollow-apiary@3.0.0#"
LEAFLET = "https://example.org/moca/fernhollow-swarm-leaflet@1.2.0#swarm-calls.md"
TODAY = datetime(2026, 11, 30, 9, tzinfo=UTC)  # every trust state of the records holds

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


def demo(framework: str) -> ASGIApp:
    """The demo app of `framework` over the demo records plus a hostile one."""
    return demo_app(load_framework(framework)(DemoReader(RECORDS, clock=lambda: TODAY)))


def serve(app: ASGIApp) -> Iterator[str]:
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
def base_url() -> Iterator[str]:
    """The bare-SDK demo on 127.0.0.1."""
    yield from serve(demo("ag-ui"))


@pytest.fixture(scope="module")
def pydantic_ai_url() -> Iterator[str]:
    """The Pydantic AI demo: each tool call comes with an empty text message."""
    yield from serve(demo("pydantic-ai"))


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
    driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "UTC"})
    driver.execute_cdp_cmd("Emulation.setLocaleOverride", {"locale": "en-GB"})
    try:
        yield driver
    finally:
        driver.quit()


def open_page(browser: WebDriver, base_url: str) -> None:
    browser.get(base_url + "/")
    browser.get_log("browser")  # start each test's log afresh
    WebDriverWait(browser, 10).until(lambda b: page(b, "return typeof handleEvent"))


def page(browser: WebDriver, script: str, *args: Any) -> Any:
    """Run `script` with the page's own modules in scope: its `handleEvent` (app.js) and the
    npm package's exports (`moca`, /moca-agui/index.js)."""
    return browser.execute_async_script(
        """const done = arguments[arguments.length - 1];
        Promise.all([import('/app.js'), import('/moca-agui/index.js')]).then(([app, moca]) => {
          const handleEvent = app.handleEvent;
          done((function () {"""
        + script
        + """}).apply(null, [...arguments].slice(0, -1)));
        }, (error) => done('import failed: ' + error));""",
        *args,
    )


def ask_page(browser: WebDriver, question: str) -> WebElement:
    """Ask `question` on the open page; return the new answer's sources section."""
    before = len(browser.find_elements(By.CSS_SELECTOR, ".answer-sources"))
    field = browser.find_element(By.ID, "question")
    field.clear()
    field.send_keys(question)
    browser.find_element(By.ID, "send").click()
    WebDriverWait(browser, 30).until(
        lambda b: (
            b.find_element(By.ID, "status").text == "Done."
            and len(b.find_elements(By.CSS_SELECTOR, ".answer-sources")) == before + 1
        )
    )
    return browser.find_elements(By.CSS_SELECTOR, ".answer-sources")[-1]


def long_field_shots() -> Path:
    """Where the hostile-record screenshots go: beside the page's own, kept by CI."""
    shots = ARTIFACTS / "long-fields"
    shots.mkdir(parents=True, exist_ok=True)
    return shots


def save_whole_page(browser: WebDriver, name: str) -> None:
    """A screenshot of the whole page, not just the window: the window is made as tall as
    the document first, and every badge must be inside it."""
    ARTIFACTS.mkdir(exist_ok=True)
    size = browser.get_window_size()
    chrome = browser.execute_script("return window.outerHeight - window.innerHeight")
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(size["width"], height + chrome)
    browser.execute_script("window.scrollTo(0, 0)")
    lowest = browser.execute_script(
        """return Math.max(...[...document.querySelectorAll('.badge')].map(
             (b) => b.getBoundingClientRect().bottom)) - window.innerHeight"""
    )
    assert lowest <= 0, f"a badge is {lowest}px below the screenshot"
    browser.save_screenshot(str(ARTIFACTS / name))
    browser.set_window_size(size["width"], size["height"])


def open_details(browser: WebDriver, element: WebElement) -> None:
    """Open each source's details in `element` as a user does: a click on its summary."""
    for summary in element.find_elements(By.CSS_SELECTOR, "details.more:not([open]) > summary"):
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", summary)
        summary.click()


def badges_shown(browser: WebDriver, source: WebElement) -> list[tuple[str, str, str]]:
    """Each badge's key, label and detail as shown: the detail's visible text (its details
    opened), each date in it read back as the ISO time its <time> element carries."""
    open_details(browser, source)
    shown: list[list[str]] = browser.execute_script(
        """const source = arguments[0];
        const details = [...source.querySelectorAll('.trust-details li')];
        return [...source.querySelectorAll('.badges li')].map((badge, i) => {
          const detail = details[i].cloneNode(true);
          for (const time of detail.querySelectorAll('time')) {
            if (time.title !== time.dateTime) return null;  // the ISO time on hover
            time.replaceWith(time.dateTime);
          }
          return [badge.dataset.badge, badge.textContent, detail.dataset.detail,
                  detail.textContent];
        });""",
        source,
    )
    assert all(d.is_displayed() for d in source.find_elements(By.CSS_SELECTOR, ".trust-details li"))
    assert all(row[0] == row[2] for row in shown), "each detail follows its badge"
    return [(key, label, detail) for key, label, _, detail in shown]


def shown_text(browser: WebDriver, element: WebElement) -> str:
    """The text `element` shows, as the browser renders it (innerText): a marker's hidden
    card is no part of it (WebDriver's own reading breaks the line at it)."""
    text: str = browser.execute_script("return arguments[0].innerText", element)
    return text


def in_view(browser: WebDriver, element: WebElement) -> bool:
    """Whether any of `element` is inside the window."""
    return bool(
        browser.execute_script(
            """const r = arguments[0].getBoundingClientRect();
            return r.bottom > 0 && r.top < window.innerHeight;""",
            element,
        )
    )


def test_the_page_runs_the_npm_package_module(browser: WebDriver, base_url: str) -> None:
    open_page(browser, base_url)
    for name in ("index.js", "dom.js", "view.js", "styles.css"):
        served = browser.execute_async_script(
            "const done = arguments[1]; fetch(arguments[0]).then((r) => r.text()).then(done)",
            f"/moca-agui/{name}",
        )
        assert served == (ROOT / "js" / name).read_text(encoding="utf-8")


def test_sources_right_under_their_answer_with_their_trust(
    browser: WebDriver, base_url: str
) -> None:
    open_page(browser, base_url)
    section = ask_page(browser, "What does the handbook cover?")
    (answer,) = browser.find_elements(By.CSS_SELECTOR, ".answer")
    bubble = answer.find_element(By.CSS_SELECTOR, ".message.assistant")
    assert answer.find_element(By.CSS_SELECTOR, ".answer-sources") == section
    assert section.get_attribute("data-message-id") == bubble.get_attribute("data-message-id")
    assert section.find_element(By.TAG_NAME, "h2").text == "Sources of answer 1"
    assert bubble.find_element(By.CSS_SELECTOR, ".who").text == "Answer 1"
    sources = section.find_elements(By.CSS_SELECTOR, "article.source")
    refs = [s.get_attribute("data-ref") for s in sources]
    assert refs == [
        *(HANDBOOK + p for p in ["autumn-feeding.md", "drought-watering-order.md",
          "hive-placement.md", "hive-registration.md", "queen-marking.md", "smoker-fuel.md",
          "swarm-collection.md", "varroa-treatment.md"]),
        LEAFLET,
    ]  # fmt: skip
    for source in sources:
        record = BY_REF[source.get_attribute("data-ref") or ""]
        expected = [(b.key, b.label, b.detail) for b in trust_badges(record)]
        assert badges_shown(browser, source) == expected  # the page and moca_agui.client agree
        assert source.find_element(By.CSS_SELECTOR, ".title").text == record["node"]["title"]
        package = source.find_element(By.CSS_SELECTOR, ".package").text
        assert package == f"{record['package']['id']} version {record['package']['version']}"

    shown = {
        s.get_attribute("data-ref"): [k for k, _, _ in badges_shown(browser, s)] for s in sources
    }
    placement = shown[HANDBOOK + "hive-placement.md"]
    assert "declared-verification" in placement and "attested-review" not in placement
    flags = {"varroa-treatment.md": "stale", "autumn-feeding.md": "contested",
             "drought-watering-order.md": "not-in-force", "queen-marking.md": "draft",
             "smoker-fuel.md": "deprecated"}  # fmt: skip
    for path, flag in flags.items():
        assert flag in shown[HANDBOOK + path]
    assert shown[LEAFLET] == ["superseded", "unsigned-package"]

    # each marker or ref in the answer is a control naming its source, listed in this section
    links = bubble.find_elements(By.CSS_SELECTOR, "button.moca-cite")
    targets = {}
    for link in links:
        targets[link.text] = link.get_attribute("data-ref")
        section.find_element(By.CSS_SELECTOR, f'article.source[data-ref="{targets[link.text]}"]')
    assert targets["[1]"] == HANDBOOK + "autumn-feeding.md"
    assert targets[HANDBOOK + "smoker-fuel.md"] == HANDBOOK + "smoker-fuel.md"
    assert len(links) == 9
    hrefs = [a.get_attribute("href") for a in section.find_elements(By.CSS_SELECTOR, ".evidence a")]
    assert hrefs == ["https://example.org/fernhollow/neighbours-guide.html"]
    save_whole_page(browser, "demo-page.png")


def test_a_marker_shows_its_source_and_the_answer_stays_in_view(
    browser: WebDriver, base_url: str
) -> None:
    open_page(browser, base_url)
    section = ask_page(browser, "What does the handbook cover?")
    bubble = browser.find_element(By.CSS_SELECTOR, ".message.assistant")
    browser.execute_script("arguments[0].scrollIntoView({block: 'start'})", bubble)
    last = bubble.find_elements(By.CSS_SELECTOR, "button.moca-cite")[-1]  # [9]: the last one
    assert last.text == "[9]"
    last.click()
    target = section.find_element(By.CSS_SELECTOR, "article.source.selected")
    assert target.get_attribute("data-ref") == LEAFLET
    assert in_view(browser, target)
    assert in_view(browser, bubble), "the answer scrolled away"
    assert browser.execute_script("return document.activeElement") == target
    assert browser.current_url == base_url + "/"  # no jump to an anchor


def test_answers_in_turn_each_numbered_once_with_no_empty_bubble(
    browser: WebDriver, pydantic_ai_url: str
) -> None:
    """Pydantic AI sends an empty text message (start and end, no content) with each tool
    call: it gets no bubble and no number."""
    questions = ["Do I need to register my hives?", "How do I treat varroa mites?"]

    async def stream(question: str) -> list[dict[str, Any]]:
        return [json.loads(e) async for e in ask(demo("pydantic-ai"), question)]

    events = asyncio.run(stream(questions[0]))
    texts = Conversation()
    for event in events:
        texts.feed(event)
    assert [m for m in texts.messages() if not m.text]  # the service does send an empty one

    open_page(browser, pydantic_ai_url)
    sections = [ask_page(browser, question) for question in questions]
    bubbles = browser.find_elements(By.CSS_SELECTOR, ".message.assistant")
    assert [b.find_element(By.CSS_SELECTOR, ".who").text for b in bubbles] == [
        "Answer 1",
        "Answer 2",
    ]
    assert all(b.find_element(By.CSS_SELECTOR, ".text").text for b in bubbles)
    assert [s.find_element(By.TAG_NAME, "h2").text for s in sections] == [
        "Sources of answer 1",
        "Sources of answer 2",
    ]
    # the conversation in order: question, answer and its sources, question, answer, sources
    order = browser.execute_script(
        """return [...document.querySelectorAll('#conversation .message, .answer-sources')]
             .map((e) => e.matches('.user') ? 'you' : e.matches('.assistant') ? 'answer'
                         : 'sources ' + e.dataset.messageId);"""
    )
    ids = [b.get_attribute("data-message-id") for b in bubbles]
    assert order == ["you", "answer", f"sources {ids[0]}", "you", "answer", f"sources {ids[1]}"]
    refs = [
        [a.get_attribute("data-ref") for a in s.find_elements(By.CSS_SELECTOR, "article")]
        for s in sections
    ]
    assert refs == [
        [HANDBOOK + "hive-registration.md", HANDBOOK + "hive-placement.md"],
        [HANDBOOK + "varroa-treatment.md"],
    ]
    assert in_view(browser, bubbles[1]) and in_view(browser, sections[1])  # the newest in view
    save_whole_page(browser, "demo-page-two-answers.png")


def test_a_ref_the_service_left_out_is_marked_not_a_source(
    browser: WebDriver, base_url: str
) -> None:
    open_page(browser, base_url)
    section = ask_page(browser, "How do I treat varroa mites?")
    bubble = browser.find_element(By.CSS_SELECTOR, ".message.assistant")
    invented = "https://example.org/moca/fernhollow-apiary@2.1.0#varroa-treatment.md"
    (marked,) = bubble.find_elements(By.CSS_SELECTOR, ".moca-not-a-source")
    assert marked.text == f"{invented} not a source"
    assert marked.find_element(By.CSS_SELECTOR, ".flag").is_displayed()
    assert marked.find_elements(By.TAG_NAME, "a") == []
    links = [a.text for a in bubble.find_elements(By.CSS_SELECTOR, "button.moca-cite")]
    assert links == [HANDBOOK + "varroa-treatment.md"]
    assert len(section.find_elements(By.CSS_SELECTOR, "article.source")) == 1


def test_dates_are_readable_with_the_iso_time_on_hover_and_below(
    browser: WebDriver, base_url: str
) -> None:
    open_page(browser, base_url)
    section = ask_page(browser, "How do I treat varroa mites?")
    computed = section.find_element(By.CSS_SELECTOR, ".computed-at")
    time = computed.find_element(By.TAG_NAME, "time")
    iso = time.get_attribute("datetime") or ""
    assert time.get_attribute("title") == iso
    at = datetime.fromisoformat(iso)  # the page runs in en-GB, in UTC
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sept", "Oct", "Nov", "Dec"]
    month = months[at.month - 1]
    assert time.text == f"{at.day} {month} {at.year}, {at:%H:%M} UTC"
    open_details(browser, section)
    stale = section.find_element(By.CSS_SELECTOR, '[data-detail="stale"]')
    assert stale.text == "Past its review date (10 Feb 2026, 00:00 UTC)."
    assert stale.find_element(By.TAG_NAME, "time").get_attribute("title") == (
        "2026-02-10T00:00:00Z"
    )


def test_a_hostile_record_renders_inert(browser: WebDriver, base_url: str) -> None:
    open_page(browser, base_url)
    section = ask_page(browser, "What is on the notice board?")
    (source,) = section.find_elements(By.CSS_SELECTOR, "article.source")
    open_details(browser, source)
    hostile = hostile_record()
    assert source.find_element(By.CSS_SELECTOR, ".title").text == hostile["node"]["title"]
    assert (
        source.find_element(By.CSS_SELECTOR, ".description").text == hostile["node"]["description"]
    )
    text = browser.execute_script(
        "return document.querySelector('article.source pre.text').textContent"
    )
    assert text == hostile["text"]
    found: dict[str, Any] = browser.execute_script(
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
    assert found["pwned"] is None
    severe = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert severe == []  # no failed request (a favicon 404 was one)
    assert found["scripts"] == [base_url + "/app.js"]
    assert found["images"] == 0
    assert found["handlers"] == []
    assert all(h.startswith(("#", "https://", "http://")) for h in found["hrefs"])
    assert [h for h in found["hrefs"] if not h.startswith("#")] == ["https://example.org/notices"]
    assert all(url.startswith(base_url) for url in found["resources"])  # nothing remote loaded
    answer = browser.find_element(By.CSS_SELECTOR, ".message.assistant").text
    assert "<script>" in answer  # the model quoted the title: shown as text too
    save_whole_page(browser, "demo-page-hostile.png")


def test_events_a_client_must_ignore_are_ignored(browser: WebDriver, base_url: str) -> None:
    open_page(browser, base_url)
    ask_page(browser, "Do I need to register my hives?")
    message_id = browser.find_element(By.CSS_SELECTOR, ".message.assistant").get_attribute(
        "data-message-id"
    )
    record = BY_REF[HANDBOOK + "smoker-fuel.md"]
    page(
        browser,
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
    warnings = [e["message"] for e in browser.get_log("browser") if "moca-agui:" in e["message"]]
    assert len(warnings) == 3, warnings  # version, no such message, a second event


def test_invalid_records_are_skipped_and_an_empty_list_says_no_sources(
    browser: WebDriver, base_url: str
) -> None:
    open_page(browser, base_url)
    bad = {**BY_REF[HANDBOOK + "smoker-fuel.md"], "trust": {"status": "stable"}}
    good = BY_REF[HANDBOOK + "queen-marking.md"]
    page(
        browser,
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
    warnings = [e["message"] for e in browser.get_log("browser") if "skipped" in e["message"]]
    assert any("skipped citations[0], invalid record (trust.declaredVerified: missing)" in w
               for w in warnings)  # fmt: skip


def test_an_answer_only_a_snapshot_carries_gets_its_sources(
    browser: WebDriver, base_url: str
) -> None:
    """A model that does not stream: the answer's text arrives in MESSAGES_SNAPSHOT only."""
    open_page(browser, base_url)
    good = BY_REF[HANDBOOK + "queen-marking.md"]
    page(
        browser,
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
    assert shown_text(browser, answer.find_element(By.CSS_SELECTOR, ".text")) == (
        "Mark the queen [1]."
    )
    (section,) = browser.find_elements(By.CSS_SELECTOR, ".answer-sources")
    refs = [a.get_attribute("data-ref") for a in section.find_elements(By.CSS_SELECTOR, "article")]
    assert refs == [good["node"]["ref"]]
    assert [a.text for a in answer.find_elements(By.CSS_SELECTOR, "button.moca-cite")] == ["[1]"]


def test_a_grouped_marker_opens_both_sources_and_a_footnote_marker_links_its_own(
    browser: WebDriver, base_url: str
) -> None:
    """`[1, 2]` as the first mention of two sources (both citations carry it) is one control
    whose card names both and whose click selects both; `[^3]` and its definition line are
    controls of source 3."""
    open_page(browser, base_url)
    paths = ["autumn-feeding.md", "queen-marking.md", "smoker-fuel.md"]
    records = [BY_REF[HANDBOOK + path] for path in paths]
    text = "Feed in autumn [1, 2]; use cool smoke [^3].\n\n[^3]: The smoker page."
    page(
        browser,
        """const [records, text] = arguments;
        handleEvent({type: 'TEXT_MESSAGE_START', messageId: 'g1', role: 'assistant'});
        handleEvent({type: 'TEXT_MESSAGE_CONTENT', messageId: 'g1', delta: text});
        handleEvent({type: 'TEXT_MESSAGE_END', messageId: 'g1'});
        const markers = ['[1, 2]', '[1, 2]', '[^3]'];
        handleEvent({type: 'CUSTOM', name: 'moca.citations', value: {version: 1, messageId: 'g1',
          citations: records.map((record, i) => ({marker: markers[i], record}))}});""",
        records,
        text,
    )
    section = browser.find_element(By.CSS_SELECTOR, ".answer-sources")
    refs = [r["node"]["ref"] for r in records]
    titles = [r["node"]["title"] for r in records]
    grouped, footnote, definition = browser.find_elements(By.CSS_SELECTOR, "button.moca-cite")
    assert (grouped.text, footnote.text, definition.text) == ("[1, 2]", "[^3]", "[^3]")

    def card_titles(control: WebElement) -> list[str]:
        card = browser.find_element(By.ID, control.get_attribute("aria-describedby") or "")
        return [t.get_attribute("textContent") or "" for t in
                card.find_elements(By.CSS_SELECTOR, ".card-source .title")]  # fmt: skip

    assert card_titles(grouped) == titles[:2]
    assert card_titles(footnote) == card_titles(definition) == titles[2:]
    grouped.click()
    selected = section.find_elements(By.CSS_SELECTOR, "article.source.selected")
    assert [card.get_attribute("data-ref") for card in selected] == refs[:2]
    assert browser.execute_script("return document.activeElement.dataset.ref") == refs[0]
    definition.click()
    selected = section.find_elements(By.CSS_SELECTOR, "article.source.selected")
    assert [card.get_attribute("data-ref") for card in selected] == refs[2:]
    severe = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert severe == []  # the marker modules /moca-agui/index.js imports were served
    save_whole_page(browser, "demo-page-marker-styles.png")


def test_chunks_are_read_as_moca_agui_reads_them(browser: WebDriver, base_url: str) -> None:
    """A TEXT_MESSAGE_CHUNK may leave out messageId: it continues the chunked message until
    another event; chunks of a user message are not an answer."""
    open_page(browser, base_url)
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
    page(browser, "arguments[0].forEach(handleEvent)", events)
    shown = [
        (
            m.get_attribute("data-message-id"),
            shown_text(browser, m.find_element(By.CSS_SELECTOR, ".text")),
        )
        for m in browser.find_elements(By.CSS_SELECTOR, ".message.assistant")
    ]
    conversation = Conversation()
    for event in events:
        conversation.feed(event)
    assert shown == [(m.id, m.text) for m in conversation.messages()] == [("c1", "Hello [1].")]
    assert [a.text for a in browser.find_elements(By.CSS_SELECTOR, "button.moca-cite")] == ["[1]"]


CHUNK_CASES = json.loads((ROOT / "tests/core/chunk-cases.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "case", CHUNK_CASES["cases"], ids=[c["name"] for c in CHUNK_CASES["cases"]]
)
def test_the_page_ends_chunked_messages_where_ag_ui_client_does(
    browser: WebDriver, base_url: str, case: dict[str, Any]
) -> None:
    """The chunk table the real @ag-ui/client and moca_agui's follower are tested against:
    the page shows the answers moca_agui.client reads."""
    open_page(browser, base_url)
    page(browser, "arguments[0].forEach(handleEvent)", case["events"])
    shown = [
        (
            m.get_attribute("data-message-id"),
            shown_text(browser, m.find_element(By.CSS_SELECTOR, ".text")),
        )
        for m in browser.find_elements(By.CSS_SELECTOR, ".message.assistant")
    ]
    conversation = Conversation()
    for event in case["events"]:
        conversation.feed(event)
    assert shown == [(m.id, m.text) for m in conversation.messages() if m.text]


def test_the_page_shows_the_badges_moca_agui_computes(browser: WebDriver, base_url: str) -> None:
    """The module the page runs computes every demo record's badges as moca_agui.client does
    (the shared case table, tests/client/client-cases.json, covers every rule)."""
    open_page(browser, base_url)
    shown = page(browser, "return arguments[0].map(moca.trustBadges)", RECORDS)
    for record, badges in zip(RECORDS, shown, strict=True):
        assert badges == [
            {"key": b.key, "label": b.label, "tone": b.tone, "detail": b.detail}
            for b in trust_badges(record)
        ]
    assert re.fullmatch(r"[\w-]+", shown[0][0]["key"])


# -- hostile records: no field's length hides a badge, a bad frame stops nothing -------------

LONG = "W" * 300_000  # one unbroken string: 4.4 million pixels wide on one line


def long_records() -> list[tuple[str, dict[str, Any], str | None]]:
    """(what is long, record, marker): records carrying every kind of badge, one with each
    field a client shows 300,000 unbroken characters long, one with its path so (and no
    title), one holding 20,000 ISO dates (220 KB)."""
    base = BY_REF[HANDBOOK + "hive-placement.md"]
    cases: list[tuple[str, dict[str, Any], str | None]] = []
    for name in ("every field", "path", "dates"):
        rec = json.loads(json.dumps(base))
        rec["node"]["ref"] += f"-{name.replace(' ', '-')}"
        trust = rec["trust"]
        trust.update(status="deprecated", stale=True, contested=True, superseded=True)
        trust["attestedReviews"] = [
            {"reviewer": "r", "reviewedAt": "2026-01-01", "outcome": "approved", "signer": "s"}
        ]
        trust["declaredVerified"] = [{"by": "the author"}]
        rec["evidence"] = [{"source": {"id": "s", "title": "Source"}, "note": "n",
                            "selector": {"exact": "q"}, "matched": False}]  # fmt: skip
        marker = f"[{len(cases) + 1}]"
        if name == "every field":
            rec["node"].update(title=LONG, description=LONG, ref=LONG)
            rec["package"]["id"] = LONG
            trust["attestedReviews"][0]["outcome"] = LONG
            trust["supersededBy"] = [LONG]
            rec["evidence"][0].update(note=LONG, selector={"exact": LONG})
            rec["evidence"][0]["source"]["title"] = LONG
            marker = LONG
        elif name == "path":
            del rec["node"]["title"]
            rec["node"]["path"] = LONG
        else:  # the page's cost grows with the record, no faster
            trust["supersededBy"] = [f"2026-01-{n % 28 + 1:02}T10:00:00Z" for n in range(20_000)]
        cases.append((name, rec, marker))
    return cases


_CARD_BADGES_ON_SCREEN = """
    const card = document.querySelectorAll('article.source')[arguments[0]];
    card.scrollIntoView({block: 'start', inline: 'start'});
    const width = document.documentElement.clientWidth, height = window.innerHeight;
    const badges = [...card.querySelectorAll('.badges li')];
    return {
      badges: badges.map((b) => b.dataset.badge),
      off: badges.filter((b) => {
        const r = b.getBoundingClientRect();
        return r.width === 0 || r.left < 0 || r.right > width || r.top < 0 || r.bottom > height;
      }).map((b) => b.dataset.badge),
    };"""


def assert_every_badge_on_screen(
    browser: WebDriver, cases: list[tuple[str, dict[str, Any], str | None]], shots: Any, who: str
) -> None:
    """Each card scrolled to its top: every badge of its record wholly inside the window.
    A screenshot of each is kept in `shots` (CI uploads `artifacts/`)."""
    for index, (name, rec, _) in enumerate(cases):
        found = browser.execute_script(_CARD_BADGES_ON_SCREEN, index)
        browser.save_screenshot(str(shots / f"{who}-{name.replace(' ', '-')}.png"))
        assert found["badges"] == [b.key for b in trust_badges(rec)], (who, name)
        assert found["off"] == [], f"{who}: with a long {name}, badges off screen: {found['off']}"


def test_no_field_of_a_record_pushes_a_badge_out_of_sight(
    browser: WebDriver, base_url: str
) -> None:
    """The demo page (its style sheet) and the Python client's HTML (no style sheet at
    all): for each field 300,000 characters long, every badge is on screen."""
    shots = long_field_shots()
    cases = long_records()
    open_page(browser, base_url)
    page(
        browser,
        """const [cases] = arguments;
        const text = cases.map(([, , marker]) => marker).join(' ');
        handleEvent({type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant'});
        handleEvent({type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: text});
        handleEvent({type: 'TEXT_MESSAGE_END', messageId: 'm1'});
        handleEvent({type: 'CUSTOM', name: 'moca.citations', value: {version: 1,
          messageId: 'm1', citations: cases.map(([, record, marker]) => ({marker, record}))}});""",
        cases,
    )
    assert browser.execute_script(  # the page is as wide as the window: nothing widened it
        "return document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )
    assert len(browser.find_elements(By.CSS_SELECTOR, "article.source")) == len(cases)
    assert (
        browser.execute_script("return document.querySelector('article.source .title').title")
        == LONG
    )  # cut on the card, whole on hover
    assert_every_badge_on_screen(browser, cases, shots, "demo-page")

    browser.get("about:blank")
    fragments = [render_record(rec, marker=marker) for _, rec, marker in cases]
    browser.execute_script("document.body.innerHTML = arguments[0].join('')", fragments)
    assert_every_badge_on_screen(browser, cases, shots, "python-client")


BAD_FRAMES = b'data: null\n\ndata: {"type": \n\ndata: [1]\n\n: ping\n\n'


def with_bad_frames(app: ASGIApp) -> ASGIApp:
    """`app` whose SSE answers begin with frames that are not AG-UI events."""

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        first = True

        async def sending(message: Any) -> None:
            nonlocal first
            if message["type"] == "http.response.body" and first and scope["method"] == "POST":
                first = False
                message = {**message, "body": BAD_FRAMES + message.get("body", b"")}
            await send(message)

        await app(scope, receive, sending)

    return wrapped


@pytest.fixture(scope="module")
def bad_frames_url() -> Iterator[str]:
    yield from serve(with_bad_frames(demo("ag-ui")))


def test_a_bad_frame_is_skipped_with_a_warning_and_the_stream_goes_on(
    browser: WebDriver, bad_frames_url: str
) -> None:
    open_page(browser, bad_frames_url)
    section = ask_page(browser, "Do I need to register my hives?")
    assert section.find_elements(By.CSS_SELECTOR, "article.source")  # the later events count
    warnings = [e["message"] for e in browser.get_log("browser") if "skipped frame" in e["message"]]
    assert len(warnings) == 3
    assert "moca-agui: skipped frame 0: not an AG-UI event: null" in warnings[0]
    assert 'moca-agui: skipped frame 1: not JSON: \\"{\\\\\\"type\\\\\\": \\"' in warnings[1]
    assert "moca-agui: skipped frame 2: not an AG-UI event: [1]" in warnings[2]


REACT_RENDER = """
import { createElement as h } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { MocaSources } from "moca-agui/react";
let input = "";
for await (const chunk of process.stdin) input += chunk;
const citations = JSON.parse(input)
  .map(([, record, marker]) => ({ marker, markers: [marker], record }));
process.stdout.write(renderToStaticMarkup(h(MocaSources, { value: { computedAt: null, citations },
  locale: "en-GB", timeZone: "UTC" })));
"""


def test_no_field_of_a_record_pushes_a_badge_out_of_sight_in_moca_sources(
    browser: WebDriver,
) -> None:
    """`<MocaSources>` as React renders it, with no style sheet and with the package's
    (moca-agui/styles.css): every badge on screen. Needs the npm package's
    dependencies (`npm ci` in js/, which the `js` session runs)."""
    node = shutil.which("node")
    if node is None or not (ROOT / "js/node_modules/react-dom").is_dir():
        pytest.skip("needs node and js/node_modules (cd js && npm ci), as nox -s tests has")
    cases = long_records()
    markup = subprocess.run(
        [node, "--input-type=module", "-e", REACT_RENDER],
        input=json.dumps(cases), capture_output=True, text=True, check=True, cwd=ROOT / "js",
        timeout=120,
    ).stdout  # fmt: skip
    shots = long_field_shots()
    browser.get("about:blank")
    browser.execute_script("document.body.innerHTML = arguments[0]", markup)
    assert_every_badge_on_screen(browser, cases, shots, "moca-sources")
    style = (ROOT / "js/styles.css").read_text(encoding="utf-8")
    browser.execute_script(
        "const s = document.createElement('style'); s.textContent = arguments[0];"
        "document.head.append(s)",
        style,
    )
    assert_every_badge_on_screen(browser, cases, shots, "moca-sources-styled")
