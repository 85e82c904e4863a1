// store.subscriber() run through the real @ag-ui/client against the `moca-agui demo` of every
// framework in moca-agui[all] (or $MOCA_AGUI_DEMO_FRAMEWORKS, see demo.js): every citation
// event lands on the message it names.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { HttpAgent } from "@ag-ui/client";
import { MocaCitations, locateMarkers, readCitations } from "moca-agui";

import { demoFrameworks, frameworksInAll, startDemo } from "./demo.js";

const HANDBOOK = "https://example.org/moca/fernhollow-apiary@3.0.0#";
const QUESTIONS = {
  "Do I need to register my hives?": [["[1]", "hive-registration.md"], ["[2]", "hive-placement.md"]],
  "How do I treat varroa mites?": [[null, "varroa-treatment.md"]],
};

const frameworks = demoFrameworks();

test("the demo's frameworks in [all] are the ones this test runs by default", () => {
  const inAll = frameworksInAll();
  assert.ok(inAll.includes("ag-ui") && inAll.includes("langgraph"), inAll.join());
  assert.ok(inAll.includes("ag2"), "ag2 (through CitationMiddleware) is in [all]");
  assert.ok(!inAll.includes("agent-framework"), "agent-framework is not in [all]");
});

for (const framework of frameworks) {
  describe(`moca-agui demo --framework ${framework}`, () => {
    let demo;
    before(async () => { demo = await startDemo(framework); });
    after(async () => { await demo?.stop(); });

    test("each moca.citations event is attached to the message it names", async () => {
      const store = new MocaCitations();
      const agent = new HttpAgent({ url: demo.url });
      const events = [];
      agent.subscribe(store.subscriber());
      agent.subscribe({
        onCustomEvent: ({ event }) => {
          if (event.name === "moca.citations") events.push(event.value);
        },
      });
      let changes = 0;
      store.subscribe(() => { changes += 1; });
      for (const question of Object.keys(QUESTIONS)) {
        agent.addMessage({ id: `user-${events.length}`, role: "user", content: question });
        await agent.runAgent();
      }
      assert.equal(events.length, 2, "one event per answer");
      assert.equal(changes, 2);
      for (const [value, expected] of events.map((v, i) => [v, Object.values(QUESTIONS)[i]])) {
        const message = agent.messages.find((m) => m.id === value.messageId);
        assert.equal(message?.role, "assistant", `no assistant message ${value.messageId}`);
        const stored = store.get(value.messageId);
        const { messageId, ...read } = readCitations(value);
        assert.deepEqual(stored, read);
        assert.deepEqual(stored.citations.map((c) => [c.marker, c.record.node.ref]),
          expected.map(([marker, path]) => [marker, HANDBOOK + path]));
        // every citation is mentioned in its message's text, where locateMarkers says
        const mentions = locateMarkers(message.content, stored.citations);
        for (const citation of stored.citations) {
          assert.ok(mentions.some((m) => m.citation === citation), citation.record.node.ref);
        }
        for (const { start, end, citation } of mentions.filter((m) => m.citation)) {
          assert.ok([citation.marker, citation.record.node.ref].includes(message.content.slice(start, end)));
        }
      }
      // the varroa answer also names a ref the Reader never returned: not a source
      const varroa = agent.messages.find((m) => m.id === events[1].messageId);
      const leftOut = locateMarkers(varroa.content, store.get(events[1].messageId).citations)
        .filter((m) => m.citation === null).map((m) => varroa.content.slice(m.start, m.end));
      assert.deepEqual(leftOut, ["https://example.org/moca/fernhollow-apiary@2.1.0#varroa-treatment.md"]);
    });
  });
}
