// The real @ag-ui/client's transformChunks against the chunk table moca_agui's stream
// follower is tested against too (tests/core/chunk-cases.json): which message each
// TEXT_MESSAGE_CHUNK belongs to, and which chunk the client rejects.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { transformChunks } from "@ag-ui/client";
import { from } from "rxjs";

const TABLE = JSON.parse(
  readFileSync(new URL("../../tests/core/chunk-cases.json", import.meta.url), "utf8"));

/** The messages (id, text) the transformed events make, and whether the client rejected one. */
function read(events) {
  return new Promise((resolve) => {
    const texts = new Map();
    const done = (rejected) => resolve({ messages: [...texts.entries()], rejected });
    from(events).pipe(transformChunks(false)).subscribe({
      next: (event) => {
        if (event.type === "TEXT_MESSAGE_START" && !texts.has(event.messageId)) {
          texts.set(event.messageId, "");
        } else if (event.type === "TEXT_MESSAGE_CONTENT") {
          texts.set(event.messageId, (texts.get(event.messageId) ?? "") + event.delta);
        }
      },
      error: (error) => {
        assert.match(String(error), /First TEXT_MESSAGE_CHUNK must have a messageId/);
        done(true);
      },
      complete: () => done(false),
    });
  });
}

for (const c of TABLE.cases) {
  test(c.name, async () => {
    assert.deepEqual(await read(c.events), { messages: c.messages, rejected: c.rejected });
  });
}
