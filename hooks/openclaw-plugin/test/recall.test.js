// Recall each turn: `zettelclaw recall --handoff --text -- MESSAGE`, the handoff and the recall
// in one process, the recall block after the handoff in the same frame; nothing from it on
// failure, delay or when it is turned off.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, test } from "node:test";

import { createPlugin } from "../index.js";
import { frameHandoff } from "../lib/handoff.js";
import { splitTurn, userMessage } from "../lib/recall.js";
import { fakeApi, fakeZettelclaw } from "./helpers.js";

const HANDOFF = [
  "## Last Session Handoff",
  "Session: abc12345 (2026-02-20T15:30:00Z)",
  "Auth migration — retry logic implementation, backfill script not started",
].join("\n");
const RECALLED = [
  "## Recalled memories (relevant to the message)",
  "- [decision auth-migration 2026-02-26] Queue-based retries with dead-letter queue for permanent failures",
].join("\n");

const fakes = [];
after(() => fakes.forEach((f) => f.cleanup()));

function setup({ behavior = {}, recallTimeoutMs, pluginConfig = {} } = {}) {
  const fake = fakeZettelclaw().behave({
    handoff: { stdout: `${HANDOFF}\n` }, recall: { stdout: `${RECALLED}\n` }, ...behavior,
  });
  fakes.push(fake);
  fs.writeFileSync(path.join(fake.logDir, "log.jsonl"), '{"id":"x"}\n');
  const api = fakeApi({ pluginConfig: { command: fake.exe, logDir: fake.logDir, ...pluginConfig } });
  createPlugin({ recallTimeoutMs }).register(api);
  const turn = (event, sessionId = "s-1") => api.hooks.before_prompt_build(
    { prompt: "how do webhook retries work?", messages: [], ...event },
    { agentId: "main", sessionKey: "agent:main:main", sessionId, workspaceDir: "/w" },
  );
  const runs = (command) => fake.records("finished").filter((r) => r.command === command);
  return { fake, api, turn, runs };
}

test("the recalled entries come after the handoff, inside the same frame", async () => {
  const { turn, runs } = setup();
  const { prependContext: text } = await turn();
  assert.equal(text.match(/<zettelclaw-memory>/g).length, 1, "one block");
  assert.equal(text.match(/<\/zettelclaw-memory>/g).length, 1);
  assert.ok(text.endsWith("</zettelclaw-memory>"));
  assert.ok(text.indexOf(HANDOFF) > 0, "the handoff, unchanged");
  assert.ok(text.indexOf(RECALLED) > text.indexOf(HANDOFF), "the recall block after it, unchanged");
  assert.equal(text, frameHandoff(HANDOFF, RECALLED));
  assert.deepEqual(runs("recall").map((r) => r.argv),
    [["recall", "--handoff", "--text", "--agent", "main", "--session-key", "agent:main:main", "--", "how do webhook retries work?"]]);
});

test("one process per prompt: both at once, then whichever is not cached", async () => {
  const { fake, turn } = setup();
  const started = () => fake.records("started").map((r) => r.argv.slice(0, 3).join(" "));
  const first = await turn();
  assert.deepEqual(started(), ["recall --handoff --text"], "the first turn: one process");
  assert.equal(first.prependContext, frameHandoff(HANDOFF, RECALLED));
  await turn({ prompt: "and the backfill script?" }); // the handoff is cached: recall alone
  assert.deepEqual(started().slice(1), ["recall --text --agent"]);
  const again = await turn({}, "s-2");
  assert.deepEqual(started().slice(2), ["handoff --text --agent"], "another session, same message");
  assert.equal(again.prependContext, first.prependContext);
  await turn();
  assert.equal(started().length, 3, "all cached: no process");
});

test("the handoff part ends at its empty line; the recalled part needs a finished run", () => {
  assert.deepEqual(splitTurn(`${HANDOFF}\n\n${RECALLED}\n`),
    { handoff: HANDOFF, recalled: RECALLED, complete: true });
  assert.deepEqual(splitTurn(`\n${RECALLED}\n`),
    { handoff: undefined, recalled: RECALLED, complete: true }, "no handoff yet");
  assert.deepEqual(splitTurn(`${HANDOFF}\n\n`),
    { handoff: HANDOFF, recalled: undefined, complete: true }, "nothing recalled");
  assert.deepEqual(splitTurn(HANDOFF.slice(0, 30)),
    { handoff: undefined, recalled: undefined, complete: false }, "cut short");
  assert.deepEqual(splitTurn(""), { handoff: undefined, recalled: undefined, complete: false });
});

test("2026.9's currentUserMessage is the message, not the prompt or the history", async () => {
  const { turn, runs } = setup();
  await turn({
    prompt: "[Mon 2026-11-23 10:00 UTC] what about the webhook retries?",
    currentUserMessage: "what about the webhook retries?",
    messages: [{ role: "user", content: "an older message" }],
  });
  assert.deepEqual(runs("recall")[0].argv.slice(-1), ["what about the webhook retries?"]);
});

test("the person's message: currentUserMessage, else the prompt, else the last user text", () => {
  assert.equal(userMessage({ currentUserMessage: " thanks! ", prompt: "x" }), "thanks!");
  assert.equal(userMessage({ currentUserMessage: "", prompt: "x" }), "", "empty: no textual request");
  assert.equal(userMessage({ prompt: "[Mon 2026-11-23 10:00 UTC] the retries?" }), "the retries?");
  assert.equal(userMessage({
    prompt: "", messages: [
      { role: "user", content: "first" },
      { role: "user", content: [{ type: "text", text: "the retries?" }] },
      { role: "assistant", content: "..." },
    ],
  }), "the retries?");
  assert.equal(userMessage({}), "");
});

test("a <private> span is never the recall query: not in the command line, not ranked", async () => {
  const { turn, runs } = setup();
  await turn({ currentUserMessage: "webhook retries? <Private>my PIN is 4417</ private> thanks" });
  await turn({ prompt: "the backfill script <private>salary 90k", messages: [] }, "s-2");
  const argvs = runs("recall").map((r) => r.argv.join(" "));
  assert.equal(argvs.length, 2);
  assert.ok(argvs.every((a) => !/4417|PIN|salary|90k|private/i.test(a)), argvs.join("\n"));
  assert.deepEqual(runs("recall")[0].argv.slice(-1), ["webhook retries?  thanks"]);
  assert.deepEqual(runs("recall")[1].argv.slice(-1), ["the backfill script"], "left open: to the end");
});

test("nothing recalled (filler): the handoff alone, as before", async () => {
  const { turn } = setup({ behavior: { recall: { stdout: "" } } });
  const { prependContext } = await turn({ prompt: "thanks!" });
  assert.equal(prependContext, frameHandoff(HANDOFF));
  assert.ok(!prependContext.includes("Recalled memories"));
});

test("no handoff yet: the recalled entries alone, framed", async () => {
  const { turn } = setup({ behavior: { handoff: { stdout: "" } } });
  const { prependContext } = await turn();
  assert.equal(prependContext, frameHandoff(undefined, RECALLED));
});

test("a failing recall is skipped and logged; the handoff still goes", async () => {
  const { api, turn } = setup({ behavior: { recall: { code: 1, stderr: "Error: boom\n" } } });
  const { prependContext } = await turn();
  assert.equal(prependContext, frameHandoff(HANDOFF));
  assert.match(api.warnings.join("\n"), /recall failed: Error: boom/);
});

test("a slow recall is abandoned; the handoff still goes", async () => {
  const { api, turn, runs } = setup({
    behavior: { recall: { stdout: RECALLED, sleepMs: 60_000 } }, recallTimeoutMs: 2000,
  });
  // one process: its handoff part came before the recall began, and goes
  const { prependContext } = await turn();
  assert.equal(prependContext, frameHandoff(HANDOFF));
  assert.deepEqual(runs("recall"), [], "killed before it answered");
  assert.match(api.warnings.join("\n"), /recall took longer than 2000 ms/);
});

test("recall.enabled false: recall never runs", async () => {
  const { fake, turn } = setup({ pluginConfig: { recall: { enabled: false } } });
  const { prependContext } = await turn();
  assert.equal(prependContext, frameHandoff(HANDOFF));
  assert.deepEqual(fake.records("started").filter((r) => r.command === "recall"), []);
});

test("the same message on the same log is answered from the cache, same bytes", async () => {
  const { turn, runs } = setup();
  const first = await turn();
  assert.deepEqual(await turn(), first);
  assert.equal(runs("recall").length, 1);
  await turn({ prompt: "and the backfill script?" });
  assert.equal(runs("recall").length, 2, "another message: asked again");
});

test("no recall in cron or subagent sessions", async () => {
  const { api, runs } = setup();
  for (const sessionKey of ["agent:main:cron:nightly", "agent:main:subagent:x"]) {
    await api.hooks.before_prompt_build({ prompt: "webhook retries", messages: [] },
      { agentId: "main", sessionKey, sessionId: "s-9" });
  }
  assert.deepEqual(runs("recall"), []);
});
