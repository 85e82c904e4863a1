// The README's CopilotKit page (through CopilotKit's runtime in Node and its HttpAgent, the
// README's server snippet) and an assistant-ui page, in Debian's headless Chromium, against
// a real `moca-agui demo` and a service whose records are hostile and long: each marker a
// control reached with Tab whose card names its source, Enter shows it in the list; one
// line per source, details closed; titles styled under the frameworks' resets; axe-core
// finds nothing serious; no request leaves 127.0.0.1. Screenshots go to artifacts/frontends/
// (CI keeps them).
// Run by `nox -s js-frontends`, with moca-agui installed from its packed tarball.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { after, before, describe, test } from "node:test";

import { chromium } from "playwright-core";

import { CASES } from "../cases.js";
import { startDemo } from "../demo.js";
import { readmeSnippet, startScripted, startSite } from "./site.js";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const ARTIFACTS = new URL("../../../artifacts/frontends/", import.meta.url).pathname;
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const HANDBOOK = "https://example.org/moca/fernhollow-apiary@3.0.0#";
const QUESTION = "Do I need to register my hives?";
const DEMO_REFS = [HANDBOOK + "hive-registration.md", HANDBOOK + "hive-placement.md"];
const LONG = "W".repeat(30_000); // one unbroken word, far wider than any window

/** A valid record whose fields carry markup, scripts, remote images and script links. */
function hostileRecord() {
  const record = structuredClone(CASES.base);
  record.node.ref = "https://example.org/moca/community-notices@1.0.0#notice-board.md";
  record.node.title = '<script>window.__pwned = "title"</script>Notice board'
    + '<img src="https://attacker.example/title.png" onerror="window.__pwned = 1">';
  record.node.description = '<a href="javascript:window.__pwned=2">Read the notice board</a>';
  record.text = 'Notice board. <script>window.__pwned = "text"</script>'
    + '<img src="https://attacker.example/pixel.png" onerror="window.__pwned = \'img\'">';
  record.evidence = [
    { source: { id: "js", title: "<b>Board</b> rules", url: "javascript:alert(1)" }, matched: false },
    { source: { id: "data", resource: "data:text/html,<script>alert(1)</script>" } },
  ];
  return record;
}

/** A record with every warning state, its title, description and package id long. */
function longRecord() {
  const record = structuredClone(CASES.base);
  record.node.ref = "https://example.org/moca/long@1.0.0#long.md";
  record.node.title = LONG;
  record.node.description = LONG;
  record.package.id = LONG;
  Object.assign(record.trust, { status: "deprecated", stale: true, contested: true, superseded: true });
  return record;
}

const HOSTILE = [
  { marker: "[1]", record: hostileRecord() },
  { marker: "[2]", record: longRecord() },
];
const HOSTILE_ANSWER = "The board says so [1], and so does the long one [2].";

/** Chromium, as Debian ships it (`.ci/run` installs it). */
async function launch() {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"],
  });
}

/** A fresh page of `browser` whose every request and WebSocket to a host other than
 * 127.0.0.1 is stopped and listed in `page.away`; `page.errors` lists its uncaught errors,
 * `page.warnings` moca-agui's console warnings. */
async function openPage(browser) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, locale: "en-GB", timezoneId: "UTC" });
  const page = await context.newPage();
  page.away = [];
  page.errors = [];
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === "127.0.0.1" || url.protocol === "data:") return route.continue();
    page.away.push(url.href);
    return route.abort();
  });
  page.warnings = [];
  await context.routeWebSocket(() => true, (socket) => {
    const url = new URL(socket.url());
    if (url.hostname === "127.0.0.1") return socket.connectToServer();
    page.away.push(url.href);
    return socket.close();
  });
  page.on("pageerror", (error) => page.errors.push(String(error)));
  page.on("console", (message) => {
    if (message.text().startsWith("moca-agui")) page.warnings.push(message.text());
  });
  return page;
}

/** Type `question` into the page's chat input and send it with Enter. */
async function ask(page, question) {
  const input = page.locator("textarea").first();
  await input.waitFor();
  await input.fill(question);
  await input.press("Enter");
}

/** The refs of the sources shown, once there are `count`. */
async function shownRefs(page, count) {
  await page.waitForFunction((n) => document.querySelectorAll(".moca-sources article.source").length >= n, count, { timeout: 30_000 });
  return page.$$eval(".moca-sources article.source", (sources) => sources.map((s) => s.dataset.ref));
}

/** axe-core's serious and critical violations in the sources and the marked answers (the
 * frameworks' own controls are theirs to fix). */
async function seriousViolations(page) {
  await page.addScriptTag({ content: AXE });
  const { violations } = await page.evaluate(() => window.axe.run({ include: [[".moca-sources"], [".moca-markers"]] }));
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** Computed font weight and size of the first source's title and of the answer's text. */
async function titleAndBody(page) {
  return page.evaluate(() => {
    const style = (element) => {
      const { fontWeight, fontSize } = getComputedStyle(element);
      return { fontWeight, fontSize };
    };
    return { title: style(document.querySelector(".moca-sources .title")), body: style(document.querySelector(".moca-markers p")) };
  });
}

/** The source list as shown: per source its ref, whether marker, title and badges share one
 * line, whether its details are closed with nothing of them laid out. */
async function sourceLines(page) {
  return page.$$eval(".moca-sources article.source", (sources) => sources.map((source) => {
    const box = (selector) => source.querySelector(selector).getBoundingClientRect();
    const [marker, title, badges] = [box(".marker"), box(".title"), box(".badges li")];
    const details = source.querySelector("details.more");
    return {
      ref: source.dataset.ref,
      oneLine: marker.top < title.bottom && title.top < marker.bottom && badges.top < title.bottom + title.height,
      closed: !details.open && [...details.children].slice(1).every((e) => !e.checkVisibility()),
    };
  }));
}

/** Each marker control of the answer, reached with Tab from the answer's text: its text,
 * what its card shows on that keyboard focus (per source: ref, title, badges), whether it fits in the
 * window, then the source that Enter selects and focuses. */
async function markersByKeyboard(page, count) {
  await page.waitForFunction((n) => document.querySelectorAll(".moca-markers .moca-cite").length === n, count);
  const seen = [];
  for (let i = 0; i < count; i++) {
    await page.locator(".moca-markers p").first().click({ position: { x: 1, y: 1 } });
    for (let tab = 0; tab <= i; tab++) await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => {
      const button = document.activeElement;
      const card = document.getElementById(button.getAttribute("aria-describedby"));
      const box = card?.getBoundingClientRect();
      return {
        control: button.matches("button.moca-cite") && button.closest(".moca-markers") !== null,
        marker: button.textContent,
        card: card && !card.hidden && box.width > 0
          ? [...card.querySelectorAll(".card-source")].map((s) => [s.dataset.ref, s.querySelector(".title").textContent,
              [...s.querySelectorAll(".badge")].map((b) => b.dataset.badge)])
          : null,
        fits: box !== undefined && box.left >= 0 && box.right <= document.documentElement.clientWidth,
      };
    });
    await page.keyboard.press("Enter");
    const selected = await page.evaluate(() => {
      const source = document.querySelector(".moca-sources article.source.selected");
      return source && document.activeElement === source ? source.dataset.ref : null;
    });
    seen.push({ ...focused, selected });
  }
  return seen;
}

/** Opens the first source's details; returns the visible text of what it shows. */
async function openedDetails(page) {
  await page.locator(".moca-sources article.source details.more summary").first().click();
  return page.locator(".moca-sources article.source details.more").first().locator(".trust-details").innerText();
}

/** A screenshot of the page down to the lowest thing shown, in artifacts/frontends/. */
async function screenshot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  const bottom = await page.evaluate(() => Math.max(...[...document.body.querySelectorAll("*")]
    .filter((e) => e.checkVisibility()).map((e) => e.getBoundingClientRect().bottom + window.scrollY)));
  const width = page.viewportSize().width;
  await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true, clip: { x: 0, y: 0, width, height: Math.ceil(bottom) + 16 } });
}

const FRONTENDS = ["copilotkit", "assistant-ui"];

/** What this process (CopilotKit's runtime) fetched off 127.0.0.1: stopped, and listed. */
const fetchedAway = [];
const fetchOnline = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.hostname === "127.0.0.1") return fetchOnline(input, init);
  fetchedAway.push(url.href);
  return Promise.reject(new TypeError(`offline: ${url.href}`));
};

test("docs/clients.md shows the README's runtime snippet as it is", () => {
  const docs = readFileSync(new URL("../../../docs/clients.md", import.meta.url), "utf8");
  assert.ok(docs.includes("```js\n" + readmeSnippet("copilotkit-runtime") + "```\n"));
});

// Outside CI the browser tests skip without Chromium; in CI (env CI set) they fail.
const MISSING = existsSync(CHROMIUM) || process.env.CI ? false : `needs ${CHROMIUM} (apt-get install chromium)`;

describe("in headless Chromium", { skip: MISSING }, () => {
  let browser, demo, scripted, demoSite, hostileSite;
  before(async () => {
    [browser, demo, scripted] = await Promise.all([launch(), startDemo("ag-ui"), startScripted(HOSTILE_ANSWER, HOSTILE)]);
    [demoSite, hostileSite] = await Promise.all([startSite(demo.url), startSite(scripted.url)]);
  });
  after(async () => {
    await Promise.all([browser?.close(), demoSite?.close(), hostileSite?.close(), scripted?.close(), demo?.stop()]);
  });

  after(() => assert.deepEqual(fetchedAway, [], "CopilotKit's runtime fetched off 127.0.0.1"));

  for (const frontend of FRONTENDS) {
    test(`${frontend}: the demo's answer, its markers as controls, its sources one line each`, async () => {
      const page = await openPage(browser);
      await page.goto(`${demoSite.url}/${frontend}.html`);
      await ask(page, QUESTION);
      await shownRefs(page, 2);
      await page.waitForFunction(() => document.querySelectorAll(".moca-markers .moca-cite").length === 2);
      await page.locator(".moca-markers p").first().click({ position: { x: 1, y: 1 } });
      await page.keyboard.press("Tab"); // [1]'s card open, for the screenshot and axe
      await screenshot(page, `${frontend}-demo`);
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual(await sourceLines(page), DEMO_REFS.map((ref) => ({ ref, oneLine: true, closed: true })));
      const { title, body } = await titleAndBody(page);
      assert.ok(title.fontWeight !== body.fontWeight || title.fontSize !== body.fontSize,
        `the title looks like body text: ${JSON.stringify({ title, body })}`);
      assert.match(await openedDetails(page), /^Reviewed by human:ines\.haddad .*: accurate\. Signed by /);
      await screenshot(page, `${frontend}-demo-details`);
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual(await markersByKeyboard(page, 2), [
        { control: true, marker: "[1]", card: [[DEMO_REFS[0], "Registering your hives", ["attested-review"]]],
          fits: true, selected: DEMO_REFS[0] },
        { control: true, marker: "[2]", card: [[DEMO_REFS[1], "Where hives may stand", ["evidence-not-matched", "signed-package"]]],
          fits: true, selected: DEMO_REFS[1] }, // its declared verification is no review: the signature is its strongest
      ]);
      assert.deepEqual(page.away, [], "no request leaves 127.0.0.1");
      assert.deepEqual(page.errors, []);
      assert.deepEqual(page.warnings, []);
      await page.context().close();
    });

    test(`${frontend}: hostile and long records shown as inert text, every badge on screen`, async () => {
      const page = await openPage(browser);
      await page.goto(`${hostileSite.url}/${frontend}.html`);
      await ask(page, "What does the notice board say?");
      await shownRefs(page, 2);
      const refs = HOSTILE.map((c) => c.record.node.ref);
      assert.deepEqual(await sourceLines(page), refs.map((ref) => ({ ref, oneLine: true, closed: true })));
      const marked = await markersByKeyboard(page, 2);
      assert.deepEqual(marked.map((m) => [m.control, m.marker, m.card?.map(([ref]) => ref), m.fits, m.selected]),
        [[true, "[1]", [refs[0]], true, refs[0]], [true, "[2]", [refs[1]], true, refs[1]]]);
      assert.ok(marked[0].card[0][1].startsWith('<script>window.__pwned = "title"</script>Notice board'));
      assert.deepEqual(marked[1].card[0][2], ["deprecated", "superseded", "stale", "contested", "signed-package"]);
      await openedDetails(page);
      await screenshot(page, `${frontend}-hostile`);
      const shown = await page.evaluate(() => ({
        pwned: window.__pwned ?? null,
        markup: document.querySelectorAll(".moca-sources :is(script, img, b), .moca-card :is(script, img)").length,
        links: [...document.querySelectorAll(".moca-sources a, .moca-card a")].map((a) => a.getAttribute("href")),
        width: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      }));
      assert.deepEqual(shown, { pwned: null, markup: 0, links: [], width: 0 });
      const off = await page.$$eval(".moca-sources .badges .badge", (badges) => badges.filter((b) => {
        b.scrollIntoView({ block: "center" });
        const r = b.getBoundingClientRect();
        return r.width === 0 || r.left < 0 || r.right > document.documentElement.clientWidth;
      }).map((b) => b.dataset.badge));
      assert.deepEqual(off, [], "a badge is off screen");
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual(page.away, [], "no request leaves 127.0.0.1");
      assert.deepEqual(page.errors, []);
      await page.context().close();
    });
  }
});
