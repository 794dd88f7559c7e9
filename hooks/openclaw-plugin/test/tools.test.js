// memory_search and memory_get: parameters to `zettelclaw search/get --json`, results back as
// {content, details}, errors thrown; 2026.2's builtin MEMORY.md search merged, 2026.9 alone.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";

import { createPlugin } from "../index.js";
import { generatedLines } from "../lib/briefing.js";
import { fakeApi, fakeZettelclaw, jsonLines, toolsOf } from "./helpers.js";

const DECISION = {
  id: "a3k9x_BmQ2yT", timestamp: "2026-02-20T14:20:00Z", type: "decision",
  content: "Queue-based retries for webhook delivery", detail: "Cascading failure risk",
  subject: "auth-migration", session: "abc12345",
};
const TASK = {
  id: "Ht4vL_9qRx2D", timestamp: "2026-02-20T15:10:00Z", type: "task",
  content: "Write backfill script for 47 failed webhook jobs", status: "open",
  subject: "auth-migration", session: "abc12345",
};
const CHUNK = {
  source: "memory", path: "MEMORY.md", startLine: 1, endLine: 4,
  snippet: "## Goals\n- Ship auth migration by end of month", score: 0.31,
};

const fakes = [];
after(() => fakes.forEach((f) => f.cleanup()));

function setup({ behavior = {}, version = "2026.9", builtins, ctx } = {}) {
  const fake = fakeZettelclaw().behave(behavior);
  fakes.push(fake);
  const api = fakeApi({ version, builtins, pluginConfig: { command: fake.exe, logDir: fake.logDir } });
  createPlugin().register(api);
  const tools = toolsOf(api, ctx ?? { agentId: "main", sessionKey: "agent:main:main", workspaceDir: "/ws/main" });
  return { fake, api, tools };
}

function parsed(result) {
  assert.equal(result.content.length, 1);
  assert.equal(result.content[0].type, "text");
  const fromText = JSON.parse(result.content[0].text);
  assert.deepEqual(fromText, result.details, "the model reads what details holds");
  return result.details;
}

test("tool definitions: names, labels, JSON Schema parameters with the design's fields", () => {
  const { tools } = setup();
  const search = tools.memory_search;
  assert.equal(search.label, "Memory Search");
  assert.deepEqual(Object.keys(search.parameters.properties).sort(),
    ["includeReplaced", "maxResults", "minScore", "query", "status", "subject", "type"]);
  assert.deepEqual(search.parameters.properties.type.enum,
    ["task", "fact", "decision", "question", "handoff"]);
  const get = tools.memory_get;
  assert.deepEqual(Object.keys(get.parameters.properties).sort(),
    ["from", "lines", "path", "transcript"]);
  assert.equal(get.parameters.properties.transcript.type, "boolean");
  assert.deepEqual(get.parameters.required, ["path"]);
  for (const tool of [search, get]) {
    // 2026.9's Tool Search would otherwise hide them behind tool_search / tool_call
    assert.equal(tool.catalogMode, "direct-only");
    assert.equal(typeof tool.execute, "function");
    assert.ok(tool.description.length > 40);
  }
});

test("memory_search maps every parameter onto `zettelclaw search --json`", async () => {
  const { fake, tools } = setup({ behavior: { search: { stdout: jsonLines([DECISION]) } } });
  await tools.memory_search.execute("call-1", {
    query: "webhook retries", maxResults: 5, minScore: 0.1, type: "decision",
    subject: "auth-migration", status: "open", includeReplaced: true,
  });
  const [run] = fake.records("finished");
  assert.deepEqual(run.argv, [
    "search", "--json", "--agent", "main", "--session-key", "agent:main:main", "--type", "decision", "--subject", "auth-migration",
    "--status", "open", "--all", "--limit", "5", "--", "webhook retries",
  ]);
  assert.equal(run.env.OPENCLAW_WORKSPACE_DIR, "/ws/main", "MEMORY.md of this agent's workspace");
  assert.equal(run.env.ZETTELCLAW_HOME, fake.logDir);
});

test("memory_search with only a query, and with only filters", async () => {
  const { fake, tools } = setup({ behavior: { search: { stdout: "" } } });
  await tools.memory_search.execute("c", { query: "-rf looks like an option" });
  await tools.memory_search.execute("c", { status: "open", maxResults: 500 });
  const [first, second] = fake.records("finished");
  assert.deepEqual(first.argv, ["search", "--json", "--agent", "main", "--session-key", "agent:main:main", "--limit", "10", "--", "-rf looks like an option"]);
  assert.deepEqual(second.argv, ["search", "--json", "--agent", "main", "--session-key", "agent:main:main", "--status", "open", "--limit", "50"]);
});

test("memory_search returns log entries and memory chunks as details and JSON text", async () => {
  const { tools } = setup({
    behavior: { search: { stdout: jsonLines([{ ...DECISION, score: 0.8 }, CHUNK]) } },
  });
  const details = parsed(await tools.memory_search.execute("c", { query: "webhook" }));
  assert.equal(details.count, 2);
  assert.deepEqual(details.results[0], { source: "log", ...DECISION, score: 0.8 });
  assert.deepEqual(details.results[1], CHUNK);
  assert.equal(Object.hasOwn(details, "status"), false, "OpenClaw grades calls by details.status");
});

test("minScore drops ranked results below it; filter-only results have no score and stay", async () => {
  const { tools } = setup({
    behavior: {
      search: { stdout: jsonLines([{ ...DECISION, score: 0.9 }, { ...CHUNK, score: 0.4 }, TASK]) },
    },
  });
  const details = parsed(await tools.memory_search.execute("c", { query: "webhook", minScore: 0.5 }));
  assert.deepEqual(details.results.map((r) => r.id ?? r.path), [DECISION.id, TASK.id]);
});

test("no match says so instead of an empty silence", async () => {
  const { tools } = setup({ behavior: { search: { stdout: "" } } });
  const details = parsed(await tools.memory_search.execute("c", { query: "zebra" }));
  assert.equal(details.count, 0);
  assert.match(details.note, /Nothing in memory matches/);
});

test("a failed search throws with zettelclaw's error line", async () => {
  const { tools } = setup({
    behavior: { search: { code: 2, stderr: "Usage: ...\nError: --type: 'idea' is not an entry type\n" } },
  });
  await assert.rejects(tools.memory_search.execute("c", { query: "x", type: "idea" }),
    /zettelclaw search failed: --type: 'idea' is not an entry type/);
});

test("2026.9: no builtin memory tools, zettelclaw answers MEMORY.md itself", async () => {
  const { api, tools } = setup({ behavior: { search: { stdout: jsonLines([CHUNK, DECISION]) } } });
  assert.equal(api.runtime.tools, undefined);
  const details = parsed(await tools.memory_search.execute("c", { query: "goals" }));
  assert.deepEqual(details.results[0], CHUNK);
});

function builtinSearch(results, calls) {
  return {
    name: "memory_search",
    async execute(toolCallId, params) {
      calls.push({ toolCallId, params });
      const details = { results, provider: "openai", model: "text-embedding-3-small" };
      return { content: [{ type: "text", text: JSON.stringify(details) }], details };
    },
  };
}

test("2026.2: the builtin's MEMORY.md results are merged with the log's entries", async () => {
  const calls = [];
  const semantic = [
    { path: "MEMORY.md", startLine: 2, endLine: 3, score: 0.82, snippet: "- Ship auth migration", source: "memory" },
    { path: "memory/people.md", startLine: 1, endLine: 9, score: 0.61, snippet: "Max: infra lead", source: "memory" },
  ];
  const { api, tools } = setup({
    version: "2026.2",
    builtins: { search: builtinSearch(semantic, calls) },
    behavior: { search: { stdout: jsonLines([{ ...DECISION, score: 0.7 }, CHUNK, { ...TASK, score: 0.5 }]) } },
    ctx: { config: { agents: {} }, sessionKey: "agent:main:main", workspaceDir: "/ws/main" },
  });
  const details = parsed(await tools.memory_search.execute("call-7", {
    query: "auth migration", maxResults: 4, minScore: 0.2,
  }));
  assert.deepEqual(calls, [{ toolCallId: "call-7", params: { query: "auth migration", maxResults: 4, minScore: 0.2 } }]);
  assert.deepEqual(api.builtinCalls.find((c) => c.factory === "search").options,
    { config: { agents: {} }, agentSessionKey: "agent:main:main" });
  // log entries and memory snippets alternate; zettelclaw's own MEMORY.md chunk overlaps the
  // builtin's (lines 1-4 vs 2-3) and gives way to it
  assert.deepEqual(details.results.map((r) => r.id ?? `${r.path}:${r.startLine}`),
    [DECISION.id, "MEMORY.md:2", TASK.id, "memory/people.md:1"]);
});

test("2026.2: a disabled builtin (no embedding provider) leaves zettelclaw's results", async () => {
  const disabled = {
    async execute() {
      const details = { results: [], disabled: true, error: "no embedding provider" };
      return { content: [{ type: "text", text: "{}" }], details };
    },
  };
  const { tools } = setup({
    version: "2026.2", builtins: { search: disabled },
    behavior: { search: { stdout: jsonLines([{ ...DECISION, score: 0.7 }, CHUNK]) } },
  });
  const details = parsed(await tools.memory_search.execute("c", { query: "auth" }));
  assert.deepEqual(details.results.map((r) => r.id ?? r.path), [DECISION.id, "MEMORY.md"]);
});

test("2026.2: structured filters go to the log only (MEMORY.md has no types)", async () => {
  const calls = [];
  const { tools } = setup({
    version: "2026.2", builtins: { search: builtinSearch([], calls) },
    behavior: { search: { stdout: jsonLines([TASK]) } },
  });
  parsed(await tools.memory_search.execute("c", { query: "backfill", status: "open" }));
  assert.deepEqual(calls, []);
});

test("2026.2: createMemorySearchTool returning null (memory search off) is fine", async () => {
  const { tools } = setup({ version: "2026.2", behavior: { search: { stdout: jsonLines([DECISION]) } } });
  const details = parsed(await tools.memory_search.execute("c", { query: "webhook" }));
  assert.equal(details.count, 1);
});

test("memory_get maps path, from and lines onto `zettelclaw get --json`", async () => {
  const file = { path: "MEMORY.md", from: 2, lines: 3, totalLines: 40, text: "a\nb\nc" };
  const { fake, tools } = setup({ behavior: { get: { stdout: `${JSON.stringify(file)}\n` } } });
  const details = parsed(await tools.memory_get.execute("c", { path: "MEMORY.md", from: 2, lines: 3 }));
  assert.deepEqual(details, file);
  const [run] = fake.records("finished");
  assert.deepEqual(run.argv, ["get", "--json", "--agent", "main", "--session-key", "agent:main:main", "--from", "2", "--lines", "3", "--", "MEMORY.md"]);
  assert.equal(run.env.OPENCLAW_WORKSPACE_DIR, "/ws/main");
});

test("memory_get of an entry id returns the entry (with replacedBy when corrected)", async () => {
  const entry = { ...DECISION, replacedBy: "Cx6tM_1pWn8Y" };
  const { fake, tools } = setup({ behavior: { get: { stdout: jsonLines([entry]) } } });
  const details = parsed(await tools.memory_get.execute("c", { path: DECISION.id }));
  assert.deepEqual(details, { entries: [entry] });
  assert.deepEqual(fake.records("finished")[0].argv, ["get", "--json", "--agent", "main", "--session-key", "agent:main:main", "--", DECISION.id]);
});

test("memory_get of session:<id> returns a page of its conversations, from and lines passed on", async () => {
  const page = {
    session: "abc12345", agent: "main", sessionKey: "agent:main:main",
    from: 201, lines: 2, totalLines: 240, next: 203, text: "User: hi\nAssistant: hello",
  };
  const { fake, tools } = setup({ behavior: { get: { stdout: `${JSON.stringify(page)}\n` } } });
  const details = parsed(await tools.memory_get.execute("c", { path: "session:abc12345", from: 201, lines: 2 }));
  assert.deepEqual(details, page);
  assert.deepEqual(fake.records("finished")[0].argv,
    ["get", "--json", "--agent", "main", "--session-key", "agent:main:main", "--from", "201", "--lines", "2", "--", "session:abc12345"]);
});

test("memory_get with transcript: true reads the conversation an entry came from", async () => {
  const page = {
    session: "abc12345", agent: "main", sessionKey: "agent:main:main", entry: DECISION.id,
    conversation: 2, conversations: 3, from: 1, lines: 2, totalLines: 2, next: null,
    text: "User: use a queue\nAssistant: queue it is",
  };
  const { fake, tools } = setup({ behavior: { get: { stdout: `${JSON.stringify(page)}\n` } } });
  const details = parsed(await tools.memory_get.execute("c", { path: DECISION.id, transcript: true }));
  assert.deepEqual(details, page);
  assert.deepEqual(fake.records("finished")[0].argv,
    ["get", "--json", "--agent", "main", "--session-key", "agent:main:main", "--transcript", "--", DECISION.id]);
  // anything but a literal true leaves it off
  await tools.memory_get.execute("c", { path: DECISION.id, transcript: "yes" });
  assert.deepEqual(fake.records("finished")[1].argv, ["get", "--json", "--agent", "main", "--session-key", "agent:main:main", "--", DECISION.id]);
});

test("memory_get throws when zettelclaw cannot find it", async () => {
  const { tools } = setup({ behavior: { get: { code: 1, stderr: "Error: no entry with id zzzzzzzzzzzz\n" } } });
  await assert.rejects(tools.memory_get.execute("c", { path: "zzzzzzzzzzzz" }),
    /zettelclaw get failed: no entry with id zzzzzzzzzzzz/);
  await assert.rejects(tools.memory_get.execute("c", { path: "  " }), /needs a path/);
});

test("2026.2: a file zettelclaw does not know is read by OpenClaw's builtin memory_get", async () => {
  const calls = [];
  const builtinGet = {
    async execute(toolCallId, params) {
      calls.push(params);
      const details = { path: params.path, text: "extra notes" };
      return { content: [{ type: "text", text: JSON.stringify(details) }], details };
    },
  };
  const { tools } = setup({
    version: "2026.2", builtins: { get: builtinGet },
    behavior: { get: { code: 1, stderr: "Error: notes/extra.md is not a memory file\n" } },
  });
  const result = await tools.memory_get.execute("c", { path: "notes/extra.md", lines: 5 });
  assert.deepEqual(result.details, { path: "notes/extra.md", text: "extra notes" });
  assert.deepEqual(calls, [{ path: "notes/extra.md", lines: 5 }]);
  await assert.rejects(tools.memory_get.execute("c", { path: "session:nope" }), /zettelclaw get failed/);
});

test("the tools run on behalf of the calling agent: ctx.agentId, else the session key's", async () => {
  const { fake, tools } = setup({
    behavior: { search: { stdout: "" }, get: { stdout: jsonLines([DECISION]) } },
    ctx: { agentId: "work", sessionKey: "agent:work:main", workspaceDir: "/ws/work" },
  });
  await tools.memory_search.execute("c", { query: "billing" });
  await tools.memory_get.execute("c", { path: "session:abc12345" });
  const [search, get] = fake.records("finished");
  assert.deepEqual(search.argv, ["search", "--json", "--agent", "work", "--session-key", "agent:work:main", "--limit", "10", "--", "billing"]);
  assert.deepEqual(get.argv, ["get", "--json", "--agent", "work", "--session-key", "agent:work:main", "--", "session:abc12345"]);
  assert.equal(search.env.OPENCLAW_WORKSPACE_DIR, "/ws/work");

  const keyed = setup({ behavior: { search: { stdout: "" } }, ctx: { sessionKey: "agent:ops:main" } });
  await keyed.tools.memory_search.execute("c", { status: "open" });
  assert.deepEqual(keyed.fake.records("finished")[0].argv,
    ["search", "--json", "--agent", "ops", "--session-key", "agent:ops:main", "--status", "open", "--limit", "10"]);
});

test("sharing in the plugin config lets an agent read the agents listed for it, no others", async () => {
  const fake = fakeZettelclaw().behave({ search: { stdout: "" } });
  fakes.push(fake);
  const api = fakeApi({
    version: "2026.9",
    pluginConfig: {
      command: fake.exe, logDir: fake.logDir, sharing: { main: ["work", "all", "../x", "main"] },
    },
  });
  createPlugin().register(api);
  const asMain = toolsOf(api, { agentId: "main", sessionKey: "agent:main:main" });
  const asWork = toolsOf(api, { agentId: "work", sessionKey: "agent:work:main" });
  await asMain.memory_search.execute("c", { query: "x" });
  await asWork.memory_search.execute("c", { query: "x" });
  const [main, work] = fake.records("finished");
  assert.deepEqual(main.argv.slice(0, 4), ["search", "--json", "--agent", "main,work"],
    "never `all`, never a bad id");
  assert.deepEqual(work.argv.slice(0, 4), ["search", "--json", "--agent", "work"],
    "sharing is one way");
});

test("an agent whose id is `all` (OpenClaw accepts it) reads and forgets its own memory only", async () => {
  const fake = fakeZettelclaw().behave({ search: { stdout: "" }, get: { stdout: "" },
    forget: { stdout: "" } });
  fakes.push(fake);
  const api = fakeApi({ pluginConfig: { command: fake.exe, logDir: fake.logDir,
    sharing: { all: ["work"], ALL: ["main"] } } });
  createPlugin().register(api);
  const all = toolsOf(api, { agentId: "all", sessionKey: "agent:all:main" });
  await all.memory_search.execute("c", { query: "x" });
  await all.memory_get.execute("c", { path: "session:abc12345" });
  await all.memory_forget.execute("c", { ids: [DECISION.id] });
  const loud = toolsOf(api, { agentId: "ALL", sessionKey: "agent:ALL:main" });
  await loud.memory_search.execute("c", { query: "x" });
  const [search, get, forget, upper] = fake.records("finished").map((r) => r.argv);
  assert.deepEqual(search.slice(0, 4), ["search", "--json", "--agent", "agent:all,work"]);
  assert.deepEqual(get.slice(0, 4), ["get", "--json", "--agent", "agent:all,work"]);
  assert.deepEqual(forget.slice(0, 5), ["forget", "--json", "--yes", "--agent", "agent:all"]);
  assert.deepEqual(upper.slice(0, 4), ["search", "--json", "--agent", "agent:ALL,main"]);
});

test("a query of more than 1,000 characters is refused before anything runs (no E2BIG)", async () => {
  const { fake, tools } = setup({ behavior: {} });
  for (const size of [2000, 1024 * 1024]) {
    await assert.rejects(tools.memory_search.execute("c", { query: "w".repeat(size) }),
      new RegExp(`the query is ${size} characters: at most 1000`));
  }
  assert.equal(fake.records("started").length, 0);
});

test("memory_search's description names what a model (or Tool Search's BM25) looks for", () => {
  const { tools } = setup();
  const words = new Set(tools.memory_search.description.toLowerCase().match(/[a-z]+/g));
  for (const word of ["memory", "remember", "recall", "past", "sessions", "conversations",
    "decisions", "tasks", "preferences", "search"]) {
    assert.ok(words.has(word), `"${word}" in the description`);
  }
  // and says what is already in context, so the model does not search for it again
  assert.match(tools.memory_search.description, /already in your context/i);
  assert.match(tools.memory_search.description, /recalled for the current message/);
});

test("2026.2: the builtin's hits in MEMORY.md's generated block are left out", async () => {
  const workspaceDir = fs.mkdtempSync(path.join(os.tmpdir(), "zc-ws-"));
  after(() => fs.rmSync(workspaceDir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(workspaceDir, "MEMORY.md"), [
    "# Memory", "", "- Max prefers Postgres", "", // 1-4: the person's notes
    "<!-- BEGIN GENERATED BRIEFING -->", "## Active", "- auth-migration: queue-based retries", // 5-7
    "<!-- END GENERATED BRIEFING -->", "", "- Retries: ask Max first", // 8-10
  ].join("\n"));
  const semantic = [
    { path: "MEMORY.md", startLine: 5, endLine: 8, score: 0.9, source: "memory",
      snippet: "<!-- BEGIN GENERATED BRIEFING -->\n## Active\n- auth-migration: queue-based retries\n<!-- END GENERATED BRIEFING -->" },
    { path: "MEMORY.md", startLine: 7, endLine: 10, score: 0.8, source: "memory",
      snippet: "- auth-migration: queue-based retries\n<!-- END GENERATED BRIEFING -->\n\n- Retries: ask Max first" },
    { path: "MEMORY.md", startLine: 1, endLine: 3, score: 0.5, source: "memory",
      snippet: "# Memory\n\n- Max prefers Postgres" },
  ];
  const { tools } = setup({
    version: "2026.2",
    builtins: { search: builtinSearch(semantic, []) },
    behavior: { search: { stdout: jsonLines([{ ...DECISION, score: 0.7 }]) } },
    ctx: { sessionKey: "agent:main:main", workspaceDir },
  });
  const details = parsed(await tools.memory_search.execute("c", { query: "queue-based retries" }));
  const memory = details.results.filter((r) => r.path);
  assert.deepEqual(memory.map((r) => [r.startLine, r.endLine, r.snippet]), [
    [9, 10, "\n- Retries: ask Max first"], // its lines inside the block cut away
    [1, 3, "# Memory\n\n- Max prefers Postgres"],
  ]);
  assert.ok(!JSON.stringify(details).includes("auth-migration: queue-based retries"),
    "the block's text, which repeats the log, is not echoed");
});

test("the generated block's lines: one BEGIN before one END, outside code fences", () => {
  const block = ["<!-- BEGIN GENERATED BRIEFING -->", "x", "<!-- END GENERATED BRIEFING -->"];
  assert.deepEqual(generatedLines(["# M", ...block].join("\n")), [2, 4]);
  assert.deepEqual(generatedLines(["```", ...block, "```", ...block].join("\n")), [6, 8]);
  assert.equal(generatedLines(block[0]), null, "a lone marker: nothing told apart");
  assert.equal(generatedLines([block[2], block[0]].join("\n")), null);
});

// memory_forget: `zettelclaw forget --json --yes` with the agent's own id, never a shared one

test("memory_forget: declared with ids, runs `zettelclaw forget --json --yes` for this agent", async () => {
  const forgotten = { ...DECISION, forgotten: "2026-03-01T10:00:00Z" };
  const { fake, tools } = setup({ behavior: { forget: { stdout: jsonLines([forgotten]) } } });
  const tool = tools.memory_forget;
  assert.equal(tool.label, "Memory Forget");
  assert.deepEqual(tool.parameters.required, ["ids"]);
  assert.match(tool.description, /confirmed/);
  const details = parsed(await tool.execute("c", { ids: [DECISION.id] }));
  assert.deepEqual(details, {
    forgotten: [{ id: DECISION.id, type: "decision", content: DECISION.content }], count: 1,
  });
  const [run] = fake.records("finished");
  assert.deepEqual(run.argv, ["forget", "--json", "--yes", "--agent", "main", "--session-key",
    "agent:main:main", "--", DECISION.id]);
  assert.equal(run.env.ZETTELCLAW_HOME, fake.logDir);
});

test("memory_forget forgets only in the calling agent's memory, not in the agents shared with it", async () => {
  const fake = fakeZettelclaw().behave({ forget: { stdout: "" } });
  fakes.push(fake);
  const api = fakeApi({
    pluginConfig: { command: fake.exe, logDir: fake.logDir, sharing: { main: ["work"] } },
  });
  createPlugin().register(api);
  const tools = toolsOf(api, { agentId: "main", sessionKey: "agent:main:main" });
  await tools.memory_search.execute("c", { query: "x" });
  const details = parsed(await tools.memory_forget.execute("c", { ids: [TASK.id] }));
  assert.equal(details.count, 0);
  assert.match(details.note, /already forgotten/);
  const [search, forget] = fake.records("finished");
  assert.deepEqual(search.argv.slice(0, 4), ["search", "--json", "--agent", "main,work"]);
  assert.deepEqual(forget.argv, ["forget", "--json", "--yes", "--agent", "main", "--session-key",
    "agent:main:main", "--", TASK.id]);
});

test("memory_forget refuses what is no id before running anything, and throws zettelclaw's error", async () => {
  const { fake, tools } = setup({
    behavior: { forget: { code: 1, stderr: "Error: no entry with id zzzzzzzzzzzz\n" } },
  });
  await assert.rejects(tools.memory_forget.execute("c", { ids: [] }), /needs ids/);
  await assert.rejects(tools.memory_forget.execute("c", { ids: ["--all"] }), /not an entry id/);
  assert.equal(fake.records("finished").length, 0);
  await assert.rejects(tools.memory_forget.execute("c", { ids: ["zzzzzzzzzzzz"] }),
    /zettelclaw forget failed: no entry with id zzzzzzzzzzzz/);
});

test("memory_get of a forgotten entry returns what `get --json` says (forgotten, and when)", async () => {
  const gone = {
    id: DECISION.id, forgotten: "2026-03-01T10:00:00Z",
    error: `entry ${DECISION.id} was forgotten on 2026-03-01; \`zettelclaw forget --undo ${DECISION.id}\` brings it back`,
  };
  const { tools } = setup({
    behavior: { get: { code: 1, stdout: `${JSON.stringify(gone)}\n`, stderr: `Error: ${gone.error}\n` } },
  });
  const details = parsed(await tools.memory_get.execute("c", { path: DECISION.id }));
  assert.deepEqual(details, gone);
});

// memory_close: `zettelclaw review close|drop|undo --json --yes` in the agent's own memory

test("memory_close: closes, drops or reopens loops by id in this agent's memory", async () => {
  const done = { ...TASK, id: "Nw1dN_0000aa", status: "done", replaces: TASK.id, session: "review" };
  const { fake, tools } = setup({ behavior: { review: { stdout: jsonLines([done]) } } });
  const tool = tools.memory_close;
  assert.equal(tool.label, "Memory Close");
  assert.deepEqual(tool.parameters.required, ["ids"]);
  assert.deepEqual(tool.parameters.properties.action.enum, ["close", "drop", "reopen", "confirm"]);
  assert.match(tool.description, /confirmed/);
  const details = parsed(await tool.execute("c", { ids: [TASK.id] }));
  assert.deepEqual(details, {
    written: [{ id: done.id, type: "task", content: TASK.content, status: "done", replaces: TASK.id }],
    count: 1,
  });
  await tool.execute("c", { ids: [TASK.id], action: "drop" });
  await tool.execute("c", { ids: [done.id], action: "reopen" });
  await tool.execute("c", { ids: ["Jn2fR_7vKw4X"], answer: "Yes, with the queue" });
  await tool.execute("c", { ids: [TASK.id], action: "confirm" });
  const argvs = fake.records("finished").map((r) => r.argv);
  // the session asking goes with every action: a person closes only their own loops, and
  // zettelclaw refuses a confirm from anyone but the owner
  const who = ["--session-key", "agent:main:main"];
  assert.deepEqual(argvs, [
    ["review", "--agent", "main", "close", "--json", "--yes", ...who, "--", TASK.id],
    ["review", "--agent", "main", "drop", "--json", "--yes", ...who, "--", TASK.id],
    ["review", "--agent", "main", "undo", "--json", "--yes", ...who, "--", done.id],
    ["review", "--agent", "main", "close", "--json", "--yes", ...who, "--answer",
      "Yes, with the queue", "--", "Jn2fR_7vKw4X"],
    ["review", "--agent", "main", "confirm", "--json", "--yes", ...who, "--", TASK.id],
  ]);
});

test("memory_close refuses what is no id or no action before running anything", async () => {
  const { fake, tools } = setup({
    behavior: { review: { code: 1, stderr: "Error: no entry with id zzzzzzzzzzzz\n" } },
  });
  const tool = tools.memory_close;
  await assert.rejects(tool.execute("c", { ids: [] }), /needs ids/);
  await assert.rejects(tool.execute("c", { ids: ["--all"] }), /not an entry id/);
  await assert.rejects(tool.execute("c", { ids: [TASK.id], action: "delete" }), /action "delete"/);
  await assert.rejects(tool.execute("c", { ids: [TASK.id], action: "drop", answer: "x" }),
    /answer goes with action close/);
  assert.equal(fake.records("finished").length, 0);
  await assert.rejects(tool.execute("c", { ids: ["zzzzzzzzzzzz"] }),
    /zettelclaw review failed: no entry with id zzzzzzzzzzzz/);
});

test("a telegram group's memory_search asks as nobody and gets no MEMORY.md from OpenClaw's builtin", async () => {
  const calls = [];
  const semantic = [{ path: "MEMORY.md", startLine: 2, endLine: 3, score: 0.82, snippet: "- alarm code 4711", source: "memory" }];
  const { fake, tools } = setup({
    version: "2026.2",
    builtins: { search: builtinSearch(semantic, calls) },
    behavior: { search: { stdout: "" } },
    ctx: { config: {}, sessionKey: "agent:main:telegram:group:-100123", workspaceDir: "/ws/main" },
  });
  const details = parsed(await tools.memory_search.execute("c", { query: "alarm code" }));
  assert.deepEqual(details.results, []);
  assert.deepEqual(calls, [], "OpenClaw's MEMORY.md search is not even asked");
  assert.deepEqual(fake.records("finished")[0].argv.slice(0, 6),
    ["search", "--json", "--agent", "main", "--session-key", "agent:main:telegram:group:-100123"]);
});

test("2026.2: a group's memory_get of MEMORY.md, refused, does not fall back to OpenClaw's reader", async () => {
  const calls = [];
  const builtinGet = {
    async execute(toolCallId, params) {
      calls.push(params);
      return { content: [{ type: "text", text: "{}" }], details: { path: params.path, text: "alarm code 4711" } };
    },
  };
  const { tools } = setup({
    version: "2026.2", builtins: { get: builtinGet },
    behavior: { get: { code: 1, stderr: "Error: refused: MEMORY.md is the owner's memory, not this session's\n" } },
    ctx: { config: {}, sessionKey: "agent:main:discord:channel:42", workspaceDir: "/ws/main" },
  });
  await assert.rejects(tools.memory_get.execute("c", { path: "MEMORY.md" }), /refused/);
  assert.deepEqual(calls, []);
});

// who calls: every memory tool carries the session key and what OpenClaw said of the sender

test("a DM sender's memory_forget and memory_close carry her session: zettelclaw changes only her own entries", async () => {
  const { fake, tools } = setup({
    behavior: { forget: { stdout: "" }, review: { stdout: "" } },
    ctx: { agentId: "main", sessionKey: "agent:main:telegram:direct:555", senderIsOwner: true },
  });
  await tools.memory_forget.execute("c", { ids: [TASK.id] });
  await tools.memory_close.execute("c", { ids: [TASK.id], action: "drop" });
  const [forget, close] = fake.records("finished").map((r) => r.argv);
  const who = ["--session-key", "agent:main:telegram:direct:555", "--sender-is-owner"];
  assert.deepEqual(forget, ["forget", "--json", "--yes", "--agent", "main", ...who, "--", TASK.id]);
  assert.deepEqual(close, ["review", "--agent", "main", "drop", "--json", "--yes", ...who, "--",
    TASK.id]);
});

test("in the shared main session, a sender OpenClaw does not call the owner is sent as not the owner", async () => {
  for (const said of [false, undefined, null, "false", "true", 1]) {
    const { fake, tools } = setup({
      behavior: { forget: { stdout: "" }, search: { stdout: "" }, get: { stdout: "{}" } },
      ctx: { agentId: "main", sessionKey: "agent:main:main", senderIsOwner: said },
    });
    await tools.memory_forget.execute("c", { ids: [TASK.id] });
    await tools.memory_search.execute("c", { query: "alarm" });
    await tools.memory_get.execute("c", { path: TASK.id });
    for (const run of fake.records("finished")) {
      assert.ok(run.argv.includes("--sender-not-owner"), `${String(said)}: ${run.argv.join(" ")}`);
      assert.ok(!run.argv.includes("--sender-is-owner"));
    }
  }
});

test("OpenClaw 2026.2's tool context has no senderIsOwner: the session alone decides", async () => {
  const { fake, tools } = setup({
    behavior: { review: { stdout: "" } },
    ctx: { agentId: "main", sessionKey: "agent:main:main" },
  });
  await tools.memory_close.execute("c", { ids: [TASK.id], action: "confirm" });
  const [run] = fake.records("finished");
  assert.ok(!run.argv.some((a) => a.startsWith("--sender")), run.argv.join(" "));
});

test("a memory tool called without a session key is nobody's: it sees and changes nothing", async () => {
  const { fake, tools } = setup({
    behavior: { forget: { stdout: "" }, search: { stdout: "" } },
    ctx: { agentId: "main", senderIsOwner: true },
  });
  await tools.memory_forget.execute("c", { ids: [TASK.id] });
  await tools.memory_search.execute("c", { query: "alarm" });
  for (const run of fake.records("finished")) {
    assert.ok(run.argv.includes("--sender-not-owner"), run.argv.join(" "));
    assert.ok(!run.argv.includes("--session-key"));
  }
});
