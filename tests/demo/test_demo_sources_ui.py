"""The demo page's markers and source list (moca-agui/dom and moca-agui/styles.css) in
headless Chromium: each marker a keyboard control whose card names its sources, Enter shows
the source in the list, one line per source with its details closed, a long title wrapping
beside its marker, light and dark, and axe-core finding no serious violation on the demo's
answers and on hostile and long records. Screenshots go to artifacts/.

Needs what test_demo_page.py needs, and axe-core (`npm ci` in js/).
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from test_demo_page import (  # the same browser set-up and pages as the page's other tests
    ARTIFACTS,
    BY_REF,
    HANDBOOK,
    ask_page,
    demo,
    in_view,
    long_records,
    open_page,
    page,
    serve,
)
from test_demo_page import browser as browser  # the fixture, one browser for the module

from moca_agui.client import trust_badges
from support import ROOT

AXE = ROOT / "js/node_modules/axe-core/axe.min.js"
#: What a card names before the strongest verification: every warning state (spec §4).
WARNINGS = {"deprecated", "not-in-force", "superseded", "stale", "contested", "draft",
            "unsigned-package", "evidence-not-matched"}  # fmt: skip


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    yield from serve(demo("ag-ui"))


def card_badges(record: dict[str, Any]) -> list[str]:
    """The badges a marker's card shows for `record`: its warnings, then its strongest
    verification (a positive signed review, else the package signature, else the author's
    declared verification)."""
    badges = trust_badges(record)
    keys = [b.key for b in badges if b.key in WARNINGS]
    good = [b.key for b in badges if b.key == "attested-review" and b.tone == "good"]
    for key in [*good, "signed-package", "declared-verification"]:
        if key in good or key in [b.key for b in badges]:
            return [*keys, key]
    return keys


def card_of(browser: WebDriver, control: WebElement) -> WebElement:
    card_id = control.get_attribute("aria-describedby") or ""
    card: WebElement = browser.find_element(By.ID, card_id)
    return card


def focused(browser: WebDriver) -> WebElement:
    element: WebElement = browser.execute_script("return document.activeElement")
    return element


def test_a_marker_is_a_keyboard_control_whose_card_names_its_source(
    browser: WebDriver, base_url: str
) -> None:
    open_page(browser, base_url)
    section = ask_page(browser, "What does the handbook cover?")
    browser.find_element(By.CSS_SELECTOR, "header.top h1").click()  # nothing focused
    ActionChains(browser).send_keys(Keys.TAB).perform()
    control = focused(browser)
    assert control.tag_name == "button" and "moca-cite" in (control.get_attribute("class") or "")
    assert control.text == "[1]"  # the marker keeps its text
    outline = browser.execute_script(
        "const s = getComputedStyle(arguments[0]); return [s.outlineStyle, s.outlineWidth]",
        control,
    )
    assert outline == ["solid", "2px"]  # the keyboard focus is visible
    card = card_of(browser, control)
    assert card.get_attribute("role") == "tooltip"
    assert card.is_displayed() and in_view(browser, card)
    assert browser.execute_script(  # announced: the card is the control's description
        "return arguments[0].parentElement.contains(document.getElementById("
        "arguments[0].getAttribute('aria-describedby')))",
        control,
    )
    record = BY_REF[HANDBOOK + "autumn-feeding.md"]
    assert card.find_element(By.CSS_SELECTOR, ".title").text == record["node"]["title"]
    assert card.find_element(By.CSS_SELECTOR, ".package").text == (
        f"{record['package']['id']}, version {record['package']['version']}"
    )
    shown = [b.get_attribute("data-badge") for b in card.find_elements(By.CSS_SELECTOR, ".badge")]
    assert shown == card_badges(record)
    assert "contested" in shown
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "demo-page-card.png"))

    # Enter shows the source in the list: highlighted, in view, focused
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    (selected,) = section.find_elements(By.CSS_SELECTOR, "article.source.selected")
    assert selected.get_attribute("data-ref") == record["node"]["ref"]
    assert focused(browser) == selected and in_view(browser, selected)
    assert not card.is_displayed()  # the marker lost focus: its card went with it

    # Escape hides a card; hovering a marker shows its own
    control.click()
    browser.execute_script("arguments[0].focus()", control)
    assert card.is_displayed()
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    assert not card.is_displayed()
    placement = next(
        c for c in browser.find_elements(By.CSS_SELECTOR, "button.moca-cite")
        if c.get_attribute("data-ref") == HANDBOOK + "hive-placement.md"
    )  # fmt: skip
    ActionChains(browser).move_to_element(placement).perform()
    hovered = card_of(browser, placement)
    assert hovered.is_displayed()
    badges = hovered.find_elements(By.CSS_SELECTOR, ".badge")
    kinds = [b.get_attribute("data-badge") for b in badges]
    assert kinds == card_badges(BY_REF[HANDBOOK + "hive-placement.md"])
    assert "attested-review" not in kinds  # the author's claim is never shown as a review


def test_a_shared_marker_names_each_source_it_opens(browser: WebDriver, base_url: str) -> None:
    open_page(browser, base_url)
    first, second = (BY_REF[HANDBOOK + p] for p in ("queen-marking.md", "smoker-fuel.md"))
    page(
        browser,
        """const [first, second] = arguments;
        handleEvent({type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant'});
        handleEvent({type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1',
                     delta: 'Mark the queen and light the smoker [1, 2]; code `[1, 2]` is not.'});
        handleEvent({type: 'TEXT_MESSAGE_END', messageId: 'm1'});
        handleEvent({type: 'CUSTOM', name: 'moca.citations', value: {version: 1,
          messageId: 'm1', citations: [{marker: '[1, 2]', record: first},
                                       {marker: '[1, 2]', record: second}]}});""",
        first,
        second,
    )
    (control,) = browser.find_elements(By.CSS_SELECTOR, "button.moca-cite")
    assert control.text == "[1, 2]"
    ActionChains(browser).move_to_element(control).perform()
    card = card_of(browser, control)
    titles = [t.text for t in card.find_elements(By.CSS_SELECTOR, ".card-source .title")]
    assert titles == [first["node"]["title"], second["node"]["title"]]
    control.click()
    selected = browser.find_elements(By.CSS_SELECTOR, "article.source.selected")
    assert [s.get_attribute("data-ref") for s in selected] == [
        first["node"]["ref"],
        second["node"]["ref"],
    ]


def test_each_source_is_one_line_with_its_details_closed(browser: WebDriver, base_url: str) -> None:
    open_page(browser, base_url)
    section = ask_page(browser, "What does the handbook cover?")
    sources = section.find_elements(By.CSS_SELECTOR, "article.source")
    assert len(sources) == 9
    lines: list[dict[str, Any]] = browser.execute_script(
        """return arguments[0].map((source) => {
          const box = (s) => source.querySelector(s).getBoundingClientRect();
          const [title, badges] = [box('.title'), box('.badges')];
          const marker = source.querySelector('.marker') ? box('.marker') : title;  // a ref cited
          const style = getComputedStyle(source.querySelector('.title'));
          return {open: source.querySelector('details.more').open,
                  marker: [marker.top, marker.bottom], title: [title.top, title.bottom],
                  titleLines: Math.round(title.height / parseFloat(style.lineHeight)),
                  badgesBelowTitle: badges.top >= title.top,
                  weight: Number(style.fontWeight),
                  body: getComputedStyle(document.body).fontSize, size: style.fontSize,
                  details: source.querySelector('.trust-details').checkVisibility()};
        });""",
        sources,
    )
    for line in lines:
        assert line["open"] is False and line["details"] is False  # details collapsed: unseen
        assert line["marker"][0] < line["title"][1] and line["title"][0] < line["marker"][1]
        assert line["titleLines"] <= 2 and line["badgesBelowTitle"]
        assert line["weight"] >= 600  # a title, styled as one
    summary = sources[0].find_element(By.CSS_SELECTOR, "details.more > summary")
    assert summary.text == "Details"
    summary.click()
    details = sources[0].find_elements(By.CSS_SELECTOR, ".trust-details li")
    assert details and all(d.is_displayed() and d.text for d in details)  # opened: visible text
    assert sources[0].find_element(By.CSS_SELECTOR, ".package").is_displayed()
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "demo-page-details.png"))


def test_a_long_title_wraps_beside_its_marker_not_a_character_a_line(
    browser: WebDriver, base_url: str
) -> None:
    open_page(browser, base_url)
    record = json.loads(json.dumps(BY_REF[HANDBOOK + "queen-marking.md"]))
    record["node"]["title"] = "Queen " * 10 + "W" * 300
    page(
        browser,
        """const [record] = arguments;
        handleEvent({type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant'});
        handleEvent({type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Queens [1].'});
        handleEvent({type: 'TEXT_MESSAGE_END', messageId: 'm1'});
        handleEvent({type: 'CUSTOM', name: 'moca.citations', value: {version: 1,
          messageId: 'm1', citations: [{marker: '[1]', record}]}});""",
        record,
    )
    found: dict[str, float] = browser.execute_script(
        """const source = document.querySelector('article.source');
        const marker = source.querySelector('.marker').getBoundingClientRect();
        const title = source.querySelector('.title').getBoundingClientRect();
        return {markerHeight: marker.height, markerWidth: marker.width,
                line: parseFloat(getComputedStyle(source.querySelector('.marker')).lineHeight),
                titleWidth: title.width, sourceWidth: source.getBoundingClientRect().width};"""
    )
    assert found["markerHeight"] < 1.5 * found["line"], found  # "[1]" on one line
    assert found["titleWidth"] > 0.6 * found["sourceWidth"], found  # the title takes the line
    assert browser.execute_script(
        "return document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )


def luminance(css: str) -> float:
    """The relative luminance of an `rgb(...)`/`rgba(...)` colour."""
    parts = [float(p) for p in css[css.index("(") + 1 : css.index(")")].split(",")[:3]]
    linear = [c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4
              for c in parts]  # fmt: skip
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def colours(browser: WebDriver) -> tuple[float, float]:
    found: list[str] = browser.execute_script(
        """const list = getComputedStyle(document.querySelector('.moca-sources'));
        return [list.color, list.backgroundColor];"""
    )
    return luminance(found[0]), luminance(found[1])


def set_dark(browser: WebDriver, dark: bool) -> None:
    scheme = "dark" if dark else "light"
    browser.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": scheme}]},
    )


def test_dark_by_the_system_or_on_request(browser: WebDriver, base_url: str) -> None:
    try:
        open_page(browser, base_url)
        ask_page(browser, "What does the handbook cover?")
        text, background = colours(browser)
        assert text < 0.1 < 0.8 < background  # light: dark text on a light ground
        set_dark(browser, True)
        text, background = colours(browser)
        assert background < 0.1 < 0.6 < text
        ARTIFACTS.mkdir(exist_ok=True)
        browser.save_screenshot(str(ARTIFACTS / "demo-page-dark.png"))
        browser.execute_script("document.documentElement.dataset.mocaTheme = 'light'")
        text, background = colours(browser)
        assert text < 0.1 < 0.8 < background  # light on request, over the system's dark
        set_dark(browser, False)
        browser.execute_script("document.documentElement.dataset.mocaTheme = 'dark'")
        text, background = colours(browser)
        assert background < 0.1 < 0.6 < text  # dark on request
    finally:
        set_dark(browser, False)


def axe_violations(browser: WebDriver) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is."""
    browser.execute_script(AXE.read_text(encoding="utf-8"))
    found: list[dict[str, Any]] = browser.execute_async_script(
        """const done = arguments[0];
        axe.run(document, {resultTypes: ['violations']}).then(
          (r) => done(r.violations.filter((v) => ['serious', 'critical'].includes(v.impact))
            .map((v) => ({id: v.id, help: v.help,
                          nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}))),
          (e) => done([{id: 'axe failed', help: String(e), nodes: []}]));"""
    )
    return found


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_axe_finds_no_serious_violation(browser: WebDriver, base_url: str, dark: bool) -> None:
    """The demo's answer, a hostile record and records with 300,000-character fields; a
    card shown and a source's details open."""
    if not AXE.is_file():
        pytest.skip("needs js/node_modules (cd js && npm ci), as nox -s tests has")
    try:
        set_dark(browser, dark)
        open_page(browser, base_url)
        ask_page(browser, "What does the handbook cover?")
        ask_page(browser, "What is on the notice board?")
        cases = [case for case in long_records() if case[0] != "dates"]
        page(
            browser,
            """const [cases] = arguments;
            handleEvent({type: 'TEXT_MESSAGE_START', messageId: 'long', role: 'assistant'});
            handleEvent({type: 'TEXT_MESSAGE_CONTENT', messageId: 'long',
                         delta: cases.map(([, , marker]) => marker).join(' ')});
            handleEvent({type: 'TEXT_MESSAGE_END', messageId: 'long'});
            handleEvent({type: 'CUSTOM', name: 'moca.citations', value: {version: 1,
              messageId: 'long',
              citations: cases.map(([, record, marker]) => ({marker, record}))}});
            document.querySelector('details.more > summary').click();
            document.querySelector('button.moca-cite').focus();""",
            cases,
        )
        assert browser.find_element(By.CSS_SELECTOR, ".moca-card:not([hidden])").is_displayed()
        assert axe_violations(browser) == []
    finally:
        set_dark(browser, False)


def test_markers_in_rendered_markdown_are_wrapped_once_never_in_code(
    browser: WebDriver, base_url: str
) -> None:
    """citeMarkers on what a Markdown renderer made of an answer: a marker in bold or split
    across elements is a control, one in code or a link is not; called again after a
    re-render, it wraps what is new and nothing twice; the rest of the DOM is kept."""
    open_page(browser, base_url)
    found: dict[str, Any] = page(
        browser,
        """const record = arguments[0];
        return import('/moca-agui/dom.js').then(({citeMarkers}) => {
          const root = document.createElement('div');
          const p = (...children) => { const e = document.createElement('p');
                                       e.append(...children); return e; };
          const el = (tag, text) => { const e = document.createElement(tag);
                                      e.textContent = text; return e; };
          const link = el('a', '[1]'); link.href = '#x';
          const kept = el('em', 'kept');
          root.append(p('Bold ', el('strong', '[1]'), ' and split [', el('em', '1'), '].'),
                      p('Code ', el('code', 'xs[1]'), ' ', link, ' ', kept),
                      el('pre', '[1]'));
          document.body.append(root);
          const value = {computedAt: null, citations: [{marker: '[1]', markers: ['[1]'], record}]};
          const first = citeMarkers(root, value);
          const again = citeMarkers(root, value);
          root.append(p('New [1]'));
          const third = citeMarkers(root, value);
          return {first, again, third,
                  controls: [...root.querySelectorAll('button.moca-cite')]
                    .map((b) => b.textContent),
                  code: root.querySelector('code').textContent,
                  pre: root.querySelector('pre').textContent,
                  link: link.textContent, kept: kept.isConnected,
                  text: root.querySelector('p').innerText};
        });""",
        BY_REF[HANDBOOK + "queen-marking.md"],
    )
    assert (found["first"], found["again"], found["third"]) == (2, 0, 1)
    assert found["controls"] == ["[1]", "[1]", "[1]"]
    assert (found["code"], found["pre"], found["link"]) == ("xs[1]", "[1]", "[1]")
    assert found["kept"]
    assert found["text"] == "Bold [1] and split [1]."  # the text as it was, cards hidden


def test_a_card_stays_in_the_window_at_its_right_and_bottom_edge(
    browser: WebDriver, base_url: str
) -> None:
    open_page(browser, base_url)
    found: list[dict[str, float]] = page(
        browser,
        """const record = arguments[0];
        return import('/moca-agui/dom.js').then(({citeMarkers}) => {
          const answer = document.createElement('p');
          answer.textContent = 'At the edge [1]';
          answer.style.textAlign = 'right';  // CSSOM: the page's CSP allows no style attribute
          answer.style.position = 'fixed';
          answer.style.right = answer.style.bottom = '0';
          answer.style.margin = '0';
          document.body.style.minHeight = '300vh';  // a vertical scroll bar takes its width
          document.body.append(answer);
          citeMarkers(answer, {computedAt: null,
                               citations: [{marker: '[1]', markers: ['[1]'], record}]});
          const control = answer.querySelector('button.moca-cite');
          control.focus();
          const card = document.getElementById(control.getAttribute('aria-describedby'));
          const box = card.getBoundingClientRect();
          const page = document.documentElement;
          return [{left: box.left, right: box.right, top: box.top, bottom: box.bottom,
                   width: page.clientWidth, height: page.clientHeight, hidden: card.hidden,
                   widened: page.scrollWidth > page.clientWidth}];
        });""",
        BY_REF[HANDBOOK + "hive-placement.md"],
    )
    (box,) = found
    assert box["hidden"] is False and box["widened"] is False
    assert box["left"] >= 0 and box["right"] <= box["width"], box
    assert box["top"] >= 0 and box["bottom"] <= box["height"], box


#: A reset as Tailwind's preflight writes it (CopilotKit v2 ships one), in a cascade layer.
LAYERED_RESET = """@layer base {
  *, ::before, ::after { box-sizing: border-box; border: 0 solid; margin: 0; padding: 0; }
  h1, h2, h3, h4 { font-size: inherit; font-weight: inherit; }
  ol, ul, menu { list-style: none; }
  button { font: inherit; color: inherit; background-color: transparent; border-radius: 0; }
}"""


def test_the_stylesheet_wins_over_a_reset_in_a_cascade_layer(
    browser: WebDriver, base_url: str
) -> None:
    open_page(browser, base_url)
    ask_page(browser, "What does the handbook cover?")
    styled = """const title = getComputedStyle(document.querySelector('article.source .title'));
        const cite = getComputedStyle(document.querySelector('button.moca-cite'));
        const badge = getComputedStyle(document.querySelector('.badge'));
        const list = getComputedStyle(document.querySelector('.moca-sources'));
        return {weight: Number(title.fontWeight), size: parseFloat(title.fontSize),
                list: parseFloat(list.fontSize),
                cite: cite.backgroundColor, badge: badge.borderTopStyle,
                padding: badge.paddingLeft};"""
    before = browser.execute_script(styled)
    browser.execute_script(
        """const sheet = new CSSStyleSheet();  // a constructed sheet: the page's CSP allows it
        sheet.replaceSync(arguments[0]);
        document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];""",
        LAYERED_RESET,
    )
    after = browser.execute_script(styled)
    assert after == before, (before, after)
    assert after["weight"] >= 600 and after["size"] > after["list"]  # a title, not body text
    assert after["cite"] != "rgba(0, 0, 0, 0)" and after["badge"] == "solid"


NODE_MODULES = ROOT / "js/node_modules"
#: React's CommonJS builds, run in the page under a small `require`.
REACT_CJS = {
    "scheduler": "scheduler/cjs/scheduler.production.js",
    "react": "react/cjs/react.production.js",
    "react-dom": "react-dom/cjs/react-dom.production.js",
    "react-dom/client": "react-dom/cjs/react-dom-client.production.js",
}
#: The package's modules, imported by bare names through an import map of data: URLs.
PACKAGE_MODULES = {"moca-index": "index.js", "moca-view": "view.js", "moca-dom": "dom.js",
                   "moca-react": "react.js"} | {
    f"moca-markers-{module.stem}": f"markers/{module.name}"
    for module in (ROOT / "js" / "markers").glob("*.js")
}  # fmt: skip


def react_page(browser: WebDriver) -> None:
    """A blank page running React (its CommonJS builds) and moca-agui/react."""
    browser.get("about:blank")
    sources = {name: (NODE_MODULES / path).read_text(encoding="utf-8")
               for name, path in REACT_CJS.items()}  # fmt: skip
    browser.execute_script(
        """const sources = arguments[0];
        const done = {};
        window.require = (name) => {
          if (!(name in done)) {
            const module = {exports: {}};
            done[name] = module.exports;
            new Function('module', 'exports', 'require', 'process', sources[name])(
              module, module.exports, window.require, {env: {NODE_ENV: 'production'}});
            done[name] = module.exports;
          }
          return done[name];
        };""",
        sources,
    )
    imports = {"react": "data:text/javascript,export default window.require('react');"
               "export const {createElement, useCallback, useEffect, useRef, useState, "
               "useSyncExternalStore, StrictMode} = window.require('react');"}  # fmt: skip
    for name, path in PACKAGE_MODULES.items():
        code = (ROOT / "js" / path).read_text(encoding="utf-8")
        for bare, file in PACKAGE_MODULES.items():  # its imports, relative to its folder
            relative = posixpath.relpath(file, posixpath.dirname(path) or ".")
            code = code.replace(f'"./{relative}"', f'"{bare}"')
        imports[name] = "data:text/javascript," + quote(code)
    browser.execute_script(
        """const map = document.createElement('script');
        map.type = 'importmap';
        map.textContent = JSON.stringify({imports: arguments[0]});
        document.head.append(map);""",
        imports,
    )


def test_moca_markers_wraps_what_react_renders_and_keeps_it_wrapped(
    browser: WebDriver,
) -> None:
    """<MocaMarkers> around an answer React renders (in StrictMode, its effects twice): the
    markers become controls once; when React renders a new text, its markers too, and when
    a child renders anew on its own state (a streaming renderer)."""
    if not (NODE_MODULES / "react-dom").is_dir():
        pytest.skip("needs js/node_modules (cd js && npm ci), as nox -s tests has")
    react_page(browser)
    found: dict[str, Any] = browser.execute_async_script(
        """const [record, done] = arguments;
        Promise.all([import('react'), import('moca-react')]).then(async ([React, moca]) => {
          const {createRoot} = window.require('react-dom/client');
          const {createElement: h, StrictMode} = React;
          const value = {computedAt: null, citations: [{marker: '[1]', markers: ['[1]'], record}]};
          const container = document.createElement('div');
          document.body.append(container);
          const root = createRoot(container);
          const render = (text) => root.render(h(StrictMode, null,
            h(moca.MocaMarkers, {value}, h('p', null, text), h('code', null, '[1]'))));
          const settle = () => new Promise((r) => setTimeout(r, 50));
          const controls = () => [...container.querySelectorAll('button.moca-cite')]
            .map((b) => b.textContent);
          render('See [1].');
          await settle();
          const first = controls();
          render('See [1], and [1] again.');
          await settle();
          const second = controls();
          const text = container.querySelector('p').innerText;
          // a renderer that streams on its own state: MocaMarkers itself does not re-render
          let more;
          function Streaming() {
            const [shown, setShown] = React.useState('Streaming');
            more = setShown;
            return h('p', null, shown);
          }
          root.render(h(moca.MocaMarkers, {value}, h(Streaming)));
          await settle();
          more('Streaming [1]');
          await settle();
          done({first, second, text, streamed: controls(),
                wrapper: container.firstElementChild.className});
        }, (error) => done({error: String(error)}));""",
        BY_REF[HANDBOOK + "queen-marking.md"],
    )
    assert found == {"first": ["[1]"], "second": ["[1]", "[1]"], "streamed": ["[1]"],
                     "text": "See [1], and [1] again.", "wrapper": "moca-markers"}  # fmt: skip


def test_citations_it_cannot_read_leave_the_answer_as_it_was(
    browser: WebDriver, base_url: str
) -> None:
    open_page(browser, base_url)
    found: dict[str, Any] = page(
        browser,
        """return import('/moca-agui/dom.js').then(({citeMarkers}) => {
          const answer = document.createElement('p');
          answer.textContent = 'See [1].';
          document.body.append(answer);
          return {wrapped: citeMarkers(answer, {computedAt: null, citations: 'not a list'}),
                  html: answer.innerHTML};
        });""",
    )
    assert found == {"wrapped": 0, "html": "See [1]."}
    warnings = [e["message"] for e in browser.get_log("browser") if "moca-agui:" in e["message"]]
    assert len(warnings) == 1 and "left a run of the answer's text as it was" in warnings[0]
