// moca-agui/react rendered with react-dom/server: a hostile record comes out as inert text.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createElement as h } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { MocaCitations, trustBadges } from "moca-agui";
import { MocaSources, useMocaCitations } from "moca-agui/react";

import { CASES } from "./cases.js";

const HOSTILE = CASES.records.find((c) => c.name.startsWith("the hostile record")).record;
const render = (value) => renderToStaticMarkup(
  h(MocaSources, { value, locale: "en-GB", timeZone: "UTC" }));

/** Each start tag's name and attributes, from the markup React wrote. */
function tags(markup) {
  return [...markup.matchAll(/<([a-z0-9]+)((?:\s+[^\s=>]+(?:="[^"]*")?)*)\s*\/?>/g)].map(([, name, attrs]) => ({
    name, attrs: Object.fromEntries([...attrs.matchAll(/([^\s=]+)(?:="([^"]*)")?/g)].map(([, k, v]) => [k, v ?? ""])),
  }));
}

test("a hostile record renders as text: no script, no image, no handler, only the http(s) link", () => {
  const markup = render({ computedAt: "2026-11-30T09:00:00Z", citations: [{ marker: "[1]", record: HOSTILE }] });
  const found = tags(markup);
  assert.deepEqual([...new Set(found.map((t) => t.name))].sort(), [
    "a", "article", "code", "details", "div", "h3", "li", "ol", "p", "pre", "q", "section",
    "span", "summary", "time", "ul"]);
  assert.deepEqual(found.flatMap((t) => Object.keys(t.attrs)).filter((a) => a.startsWith("on")), []);
  assert.deepEqual(found.filter((t) => t.name === "a").map((t) => t.attrs.href), ["https://example.org/notices"]);
  // the markup in the fields is there, escaped, as the text it is
  assert.ok(markup.includes("&lt;script&gt;window.__pwned = &quot;title&quot;&lt;/script&gt;Notice board"));
  assert.ok(markup.includes("&lt;a href=&quot;javascript:window.__pwned=2&quot;&gt;Read the notice board&lt;/a&gt;"));
  assert.ok(markup.includes("&lt;b&gt;Board&lt;/b&gt; rules"));
});

test("each source is one line (marker, title, trustBadges), its details in a closed disclosure", () => {
  const record = CASES.base;
  const markup = render({ computedAt: null, citations: [{ marker: "[1]", record }] });
  const badges = [...markup.matchAll(/<li class="badge ([a-z]+)" data-badge="([^"]+)">([^<]*)<\/li>/g)]
    .map(([, tone, key, label]) => ({ key, label, tone }));
  assert.deepEqual(badges, trustBadges(record).map(({ key, label, tone }) => ({ key, label, tone })));
  assert.ok(markup.includes(`<span class="marker">[1]</span><h3 class="title">${record.node.title}</h3>`));
  assert.ok(markup.includes(`<p class="package"><span class="id">${record.package.id}</span> <span class="version">version 1.0.0</span></p>`));
  assert.ok(markup.includes(`<code>${record.node.ref}</code>`));
  assert.ok(markup.includes('<details class="more"><summary>Details</summary><p class="package">'));
  assert.ok(!markup.includes("<details open") && !markup.includes("computed-at"));
});

test("a source cited for two of its spans shows both markers", () => {
  const record = CASES.base;
  const markup = render({ computedAt: null, citations: [{ marker: "[1]", markers: ["[1]", "[3]"], record }] });
  assert.ok(markup.includes(`<span class="marker">[1] [3]</span><h3 class="title">${record.node.title}</h3>`));
});

test("dates are readable, the ISO time on hover", () => {
  const stale = { ...CASES.base, trust: { ...CASES.base.trust, stale: true, staleAfter: "2026-02-10T00:00:00Z" } };
  const markup = render({ computedAt: "2026-11-30T09:00:00.000+00:00", citations: [{ marker: null, record: stale }] });
  assert.ok(markup.includes('<p class="computed-at">Trust as of <time dateTime="2026-11-30T09:00:00.000+00:00" ' +
    'title="2026-11-30T09:00:00.000+00:00">30 Nov 2026, 09:00 UTC</time></p>'), markup);
  assert.ok(markup.includes('Past its review date (<time dateTime="2026-02-10T00:00:00Z" title="2026-02-10T00:00:00Z">' +
    "10 Feb 2026, 00:00 UTC</time>)."));
});

test("no citations say so; no event renders nothing", () => {
  assert.equal(render({ computedAt: null, citations: [] }),
    '<section class="moca-sources" aria-label="Sources"><p class="no-sources">No sources from the loaded packages.</p></section>');
  assert.equal(render(undefined), "");
});

test("useMocaCitations reads the store", () => {
  const store = new MocaCitations();
  store.subscriber().onCustomEvent({
    event: { name: "moca.citations", value: { version: 1, messageId: "m1", citations: [{ record: CASES.base }] } },
    messages: [{ id: "m1", role: "assistant", content: "a" }],
  });
  function Sources({ id }) {
    return h(MocaSources, { value: useMocaCitations(store, id) });
  }
  assert.match(renderToStaticMarkup(h(Sources, { id: "m1" })), /data-ref="https:\/\/example.org\/moca\/apiary@1.0.0#hive-placement.md"/);
  assert.equal(renderToStaticMarkup(h(Sources, { id: "m2" })), "");
});

test("a field of 300,000 characters is cut, whole on hover, and the badges come right after the title", () => {
  const long = "W".repeat(300000);
  const record = structuredClone(CASES.base);
  record.node.title = long;
  record.package.id = long;
  record.node.ref = long;
  record.trust.attestedReviews = [{ reviewer: "r", reviewedAt: "2026-01-01", outcome: long, signer: "s" }];
  record.evidence = [{ source: { title: long }, selector: { exact: long }, note: long }];
  const markup = render({ computedAt: null, citations: [{ marker: long, record }] });
  const cut = `${"W".repeat(160)}\u2026`;
  assert.ok(markup.includes(`<div class="line"><span class="marker" title="${long}">${cut}</span>` +
    `<h3 class="title" title="${long}">${cut}</h3><ul class="badges" aria-label="Trust">` +
    `<li class="badge warning" data-badge="attested-review" title="Reviewed: ${long} (signed)">` +
    `Reviewed: ${"W".repeat(38)}\u2026WWW (signed)</li>`));
  assert.ok(markup.includes(`<p class="package"><span class="id" title="${long}">${cut}</span>`));
  assert.ok(markup.includes(`<span class="note" title="${long}">${cut}</span>`));
  assert.ok(markup.includes(`<q title="${long}">${cut}</q>`));
  assert.ok(markup.startsWith('<section class="moca-sources" aria-label="Sources"><ol class="source-list">' +
    `<li><article class="source" data-ref="${long}" tabindex="-1"><div class="line">`));
});
