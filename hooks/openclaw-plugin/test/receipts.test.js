// Receipts: the turn's run is asked to receipt what it prints, under the message id OpenClaw
// gives; a turn answered from the plugin's cache gets a line naming the turn it repeats; the
// memory tools called in a turn name that turn.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, test } from "node:test";

import { createPlugin } from "../index.js";
import { turnIdOf } from "../lib/receipts.js";
import { fakeApi, fakeZettelclaw, jsonLines, toolsOf } from "./helpers.js";

const HANDOFF = "## Last Session Handoff\nAuth migration: backfill script not started";
const RECALLED = "## Recalled memories (relevant to the message)\n- [decision 2026-02-26] Queue-based retries";
const CTX = { agentId: "main", sessionKey: "agent:main:main", sessionId: "s-1", workspaceDir: "/w" };

const fakes = [];
after(() => fakes.forEach((f) => f.cleanup()));

function setup() {
  const fake = fakeZettelclaw().behave({
    handoff: { stdout: `${HANDOFF}\n` }, recall: { stdout: `${RECALLED}\n` },
    search: { stdout: jsonLines([{ id: "a3k9x_BmQ2yT", type: "decision", content: "x" }]) },
  });
  fakes.push(fake);
  fs.writeFileSync(path.join(fake.logDir, "log.jsonl"), '{"id":"x"}\n');
  const api = fakeApi({ pluginConfig: { command: fake.exe, logDir: fake.logDir } });
  createPlugin().register(api);
  const turn = (id, prompt = "how do webhook retries work?") => api.hooks.before_prompt_build(
    { prompt, currentUserMessage: prompt, currentUserMessageId: id, messages: [] }, CTX);
  const receipts = () => {
    const dir = path.join(fake.logDir, "receipts");
    if (!fs.existsSync(dir)) return [];
    return fs.readdirSync(dir).sort().flatMap((name) => fs.readFileSync(path.join(dir, name), "utf8")
      .split("\n").filter(Boolean).map((line) => JSON.parse(line)));
  };
  return { fake, api, turn, receipts };
}

test("the turn's run is asked to receipt what it prints, under OpenClaw's message id", async () => {
  const { fake, turn } = setup();
  await turn("msg-7");
  const [run] = fake.records("finished");
  assert.deepEqual(run.rawArgv, ["recall", "--handoff", "--text", "--agent", "main",
    "--session-key", "agent:main:main", "--turn", "msg-7", "--session-id", "s-1", "--",
    "how do webhook retries work?"]);
});

test("a turn answered from the cache gets a receipt naming the turn whose run it repeats", async () => {
  const { fake, turn, receipts } = setup();
  await turn("msg-7");
  await turn("msg-7"); // a retry of the same request: the same turn, no second receipt
  assert.deepEqual(receipts(), []);
  await turn("msg-8"); // the same message again on the same log: nothing runs
  assert.equal(fake.records("finished").length, 1, "answered from the cache");
  const lines = receipts().map(({ at, ...rest }) => rest);
  assert.deepEqual(lines, [
    { turn: "msg-8", by: "plugin", part: "handoff", repeats: "msg-7", agent: "main",
      session: "s-1", session_key: "agent:main:main" },
    { turn: "msg-8", by: "plugin", part: "recall", repeats: "msg-7", agent: "main",
      session: "s-1", session_key: "agent:main:main" },
  ]);
  // another message: the recall runs for this turn, the handoff comes from msg-7's run
  await turn("msg-9", "and the backfill script?");
  const runs = fake.records("finished");
  assert.deepEqual(runs.at(-1).rawArgv.slice(0, 2), ["recall", "--text"]);
  assert.ok(runs.at(-1).rawArgv.includes("msg-9"));
  assert.deepEqual(receipts().slice(2).map((r) => [r.turn, r.part, r.repeats]),
    [["msg-9", "handoff", "msg-7"]]);
});

test("memory_search and memory_get called in a turn name that turn and the tool call", async () => {
  const { fake, api, turn } = setup();
  await turn("msg-7");
  const tools = toolsOf(api, CTX);
  await tools.memory_search.execute("call-3", { query: "webhook" });
  const search = fake.records("finished").find((r) => r.command === "search");
  assert.deepEqual(search.rawArgv.slice(search.rawArgv.indexOf("--turn"), -2),
    ["--turn", "msg-7", "--session-id", "s-1", "--tool-call", "call-3", "--limit", "10"]);
  // a session no turn was seen in: the call is the turn
  const other = toolsOf(api, { ...CTX, sessionKey: "agent:main:other", sessionId: "s-2" });
  await other.memory_get.execute("call-4", { path: "a3k9x_BmQ2yT" });
  const get = fake.records("finished").find((r) => r.command === "get");
  assert.deepEqual(get.rawArgv.slice(get.rawArgv.indexOf("--turn"), -2),
    ["--turn", "call-4", "--session-id", "s-2", "--tool-call", "call-4"]);
});

test("the turn is OpenClaw 2026.9's message id, else the run's id, else a new one each time", () => {
  assert.equal(turnIdOf({ currentUserMessageId: "m-1" }, { runId: "r-1" }), "m-1");
  assert.equal(turnIdOf({}, { runId: "r-1" }), "r-1");
  const [a, b] = [turnIdOf({}, {}), turnIdOf({}, {})];
  assert.match(a, /^t-/);
  assert.notEqual(a, b);
});
