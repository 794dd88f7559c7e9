// session_end, before_reset and gateway_start: the argv and stdin handed to `zettelclaw`, and a
// child that is detached (own session, own process group), unref'd and outlives the gateway.

import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import { createPlugin } from "../index.js";
import { processStartIso } from "../lib/hooks.js";
import { fakeApi, fakeZettelclaw } from "./helpers.js";

const GATEWAY = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "gateway.mjs");
const LINUX = fs.existsSync("/proc/self/stat");
const fakes = [];
after(() => fakes.forEach((f) => f.cleanup()));

function setup({ version = "2026.9", behavior = {}, config = {} } = {}) {
  const fake = fakeZettelclaw().behave(behavior);
  fakes.push(fake);
  const api = fakeApi({
    version, pluginConfig: { command: fake.exe, logDir: fake.logDir, ...config },
  });
  createPlugin().register(api);
  return { fake, api };
}

function conversation(size = 4) {
  const out = [];
  for (let i = 0; i < size; i += 1) {
    out.push({ role: "user", content: `plum-17 message ${i}: let's settle the webhook retry policy` });
    out.push({ role: "assistant", content: [{ type: "text", text: `Agreed (${i}).` }] });
  }
  return out;
}

test("session_end (2026.9 event) starts `zettelclaw extract` for that session and returns at once", async () => {
  const { fake, api } = setup({ behavior: { extract: { waitFor: "release" } } });
  const returned = api.hooks.session_end(
    {
      sessionId: "s-1", sessionKey: "agent:main:main", messageCount: 0, reason: "shutdown",
      sessionFile: "sqlite:main:s-1:/state/openclaw-agent.sqlite",
    },
    { agentId: "main", sessionId: "s-1", sessionKey: "agent:main:main" },
  );
  assert.equal(returned, undefined, "no promise: nothing for the shutdown drain to wait on");
  const [started] = await fake.waitForRecords(1, "started");
  assert.deepEqual(fake.records("finished"), [], "the hook returned while extract still runs");
  assert.deepEqual(started.argv, [
    "extract", "--session-id", "s-1", "--agent", "main", "--session-key", "agent:main:main",
    "--session-file", "sqlite:main:s-1:/state/openclaw-agent.sqlite",
    "--reason", "session_end:shutdown",
  ]);
  assert.equal(started.env.ZETTELCLAW_HOME, fake.logDir);
  fake.release();
  await fake.waitForRecords(1);
});

test("session_end with 2026.2's smaller event (no key, no file, no reason)", async () => {
  const { fake, api } = setup({ version: "2026.2" });
  api.hooks.session_end({ sessionId: "s-2", messageCount: 3, durationMs: 1200 },
    { agentId: "main", sessionId: "s-2" });
  const [done] = await fake.waitForRecords(1);
  assert.deepEqual(done.argv, [
    "extract", "--session-id", "s-2", "--agent", "main", "--reason", "session_end"]);
});

test("session_end without a sessionId starts nothing", () => {
  const { fake, api } = setup();
  api.hooks.session_end({ messageCount: 0 }, {});
  assert.deepEqual(fake.records(), []);
});

test("before_reset hands the messages over stdin as a JSON array, never in argv", async () => {
  const { fake, api } = setup();
  const messages = conversation();
  const returned = api.hooks.before_reset(
    { messages, reason: "new", sessionFile: "sqlite:main:s-3:/x" },
    { agentId: "main", sessionId: "s-3", sessionKey: "agent:main:main", workspaceDir: "/w" },
  );
  assert.equal(returned, undefined);
  const [done] = await fake.waitForRecords(1);
  assert.deepEqual(done.argv, [
    "extract", "--session-id", "s-3", "--agent", "main", "--session-key", "agent:main:main",
    "--reason", "before_reset:new", "--messages", "-",
  ]);
  assert.ok(!done.argv.some((a) => a.includes("plum-17")), "no conversation text in argv");
  assert.deepEqual(JSON.parse(done.stdin), messages);
});

test("a before_reset temp file left by a killed gateway is removed by the next run", async () => {
  const { fake, api } = setup();
  // a gateway killed between writing the messages and unlinking them leaves its directory
  const deadPid = spawnSync(process.execPath, ["-e", ""]).pid;
  const stale = `.zettelclaw-stdin-${deadPid}-AbC123`;
  const legacy = ".zettelclaw-stdin-Qw3rTy";
  const running = `.zettelclaw-stdin-${process.ppid}-XyZ789`; // another gateway, still writing
  for (const name of [stale, legacy, running]) {
    fs.mkdirSync(path.join(fake.logDir, name));
    fs.writeFileSync(path.join(fake.logDir, name, "messages.json"),
      JSON.stringify(conversation(1)), { mode: 0o600 });
  }
  const hourAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
  fs.utimesSync(path.join(fake.logDir, legacy), hourAgo, hourAgo);
  const messages = conversation();
  api.hooks.before_reset({ messages, reason: "new" },
    { agentId: "main", sessionId: "s-stale", sessionKey: "agent:main:main", workspaceDir: "/w" });
  const [done] = await fake.waitForRecords(1);
  assert.deepEqual(JSON.parse(done.stdin), messages);
  const left = fs.readdirSync(fake.logDir).filter((n) => n.startsWith(".zettelclaw-stdin-"));
  assert.deepEqual(left, [running], "the dead gateway's messages are gone, the live one's stay");
});

test("2026.2's before_reset calls every agent \"agent\": the session key names the real one", async () => {
  const { fake, api } = setup({ version: "2026.2" });
  api.hooks.before_reset({ messages: conversation(1), reason: "new" },
    { agentId: "agent", sessionKey: "agent:work:main", sessionId: "s-3b", workspaceDir: "/w" });
  const [done] = await fake.waitForRecords(1);
  assert.deepEqual(done.argv.slice(0, 7), [
    "extract", "--session-id", "s-3b", "--agent", "work", "--session-key", "agent:work:main"]);
});

test("before_reset accepts whole transcript events as messages", async () => {
  const { fake, api } = setup();
  const events = [
    { type: "message", id: "e1", message: { role: "user", content: "plum-17 hello" } },
    { type: "message", id: "e2", message: { role: "assistant", content: [{ type: "text", text: "hi" }] } },
  ];
  api.hooks.before_reset({ messages: [...events, null, "junk"] }, { sessionId: "s-4" });
  const [done] = await fake.waitForRecords(1);
  assert.deepEqual(JSON.parse(done.stdin), events);
});

test("before_reset without messages lets extract read the (rotated) transcript file", async () => {
  const { fake, api } = setup({ version: "2026.2" });
  const file = "/home/u/.openclaw/agents/main/sessions/s-5.jsonl.reset.2026-02-20T10-00-00.000Z";
  api.hooks.before_reset({ sessionFile: file, reason: "reset" }, { agentId: "main" });
  const [done] = await fake.waitForRecords(1);
  assert.deepEqual(done.argv, [
    "extract", "--agent", "main", "--session-file", file, "--reason", "before_reset:reset"]);
  assert.equal(done.stdin, null);
});

test("a large conversation reaches stdin whole (more than a pipe buffer)", async () => {
  const { fake, api } = setup();
  const messages = conversation(3000); // about 500 kB of JSON
  api.hooks.before_reset({ messages }, { sessionId: "s-6", agentId: "main" });
  const [done] = await fake.waitForRecords(1);
  assert.ok(done.stdin.length > 256 * 1024);
  assert.deepEqual(JSON.parse(done.stdin), messages);
});

test("the child is detached: its own session and process group, output to hooks.log", { skip: !LINUX }, async () => {
  const { fake, api } = setup({ behavior: { extract: { stdout: "appended 3 entries\n" } } });
  api.hooks.session_end({ sessionId: "s-7" }, { agentId: "main" });
  const [done] = await fake.waitForRecords(1);
  assert.equal(done.sid, done.pid, "session leader (setsid)");
  assert.equal(done.pgid, done.pid, "its own process group");
  const ours = fs.readFileSync("/proc/self/stat", "utf8");
  const ourPgid = Number(ours.slice(ours.lastIndexOf(")") + 2).split(" ")[2]);
  assert.notEqual(done.pgid, ourPgid);
  const hooksLog = path.join(fake.logDir, "hooks.log");
  assert.equal(done.fd1, hooksLog);
  assert.equal(done.fd2, hooksLog);
  assert.equal(done.fd0, "/dev/null");
  // the output lands once the child has exited
  for (;;) {
    const text = fs.readFileSync(hooksLog, "utf8");
    if (text.includes("appended 3 entries")) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const text = fs.readFileSync(hooksLog, "utf8");
  assert.match(text, /start extract s-7 \(session_end\): .*zettelclaw extract --session-id s-7/);
});

test("with no log directory yet the child's output is discarded, not an error", { skip: !LINUX }, async () => {
  const { fake, api } = setup({ config: { logDir: "/nonexistent/zettelclaw-test" } });
  api.hooks.session_end({ sessionId: "s-8" }, {});
  const [done] = await fake.waitForRecords(1);
  assert.equal(done.fd1, "/dev/null");
  assert.equal(done.env.ZETTELCLAW_HOME, "/nonexistent/zettelclaw-test");
  assert.deepEqual(api.warnings, []);
});

test("extraction outlives the gateway: SIGTERM to its process group, stdin already complete", { skip: !LINUX }, async () => {
  const fake = fakeZettelclaw().behave({ extract: { waitFor: "release" } });
  fakes.push(fake);
  const messages = conversation(2000);
  const spec = path.join(fake.dir, "gateway.json");
  fs.writeFileSync(spec, JSON.stringify({
      pluginConfig: { command: fake.exe, logDir: fake.logDir },
      hook: "before_reset",
      event: { messages, reason: "new" },
      ctx: { agentId: "main", sessionId: "s-9", sessionKey: "agent:main:main" },
  }));
  const gateway = spawn(process.execPath, [GATEWAY, spec], { detached: true, stdio: ["ignore", "pipe", "inherit"] });
  const fired = await new Promise((resolve) => {
    gateway.stdout.once("data", (chunk) => resolve(String(chunk).trim()));
  });
  assert.equal(fired, "fired sync");
  await fake.waitForRecords(1, "started");
  const exited = new Promise((resolve) => gateway.once("exit", (code, signal) => resolve({ code, signal })));
  process.kill(-gateway.pid, "SIGTERM"); // the whole group, as a service manager would
  const status = await exited;
  assert.ok(status.code === 143 || status.signal === "SIGTERM");
  fake.release();
  const [done] = await fake.waitForRecords(1);
  assert.notEqual(done.ppid, gateway.pid);
  assert.deepEqual(JSON.parse(done.stdin), messages);
});

test("gateway_start starts one detached `zettelclaw sweep` per gateway start", async () => {
  const { fake, api } = setup({ behavior: { sweep: { waitFor: "release" } } });
  assert.equal(api.hooks.gateway_start({ port: 18789 }, { port: 18789 }), undefined);
  api.hooks.gateway_start({ port: 18789 }, { port: 18789 }); // a second registry's copy
  const [started] = await fake.waitForRecords(1, "started");
  // --text: the summary line in hooks.log as text, not the JSON a pipe gets
  assert.deepEqual(started.argv.slice(0, 3), ["sweep", "--text", "--gateway-start"]);
  // the time this process started: a conversation cut off before it is taken at once
  const passed = Date.parse(started.argv[3]);
  const expected = Date.now() - process.uptime() * 1000;
  assert.ok(Math.abs(passed - expected) < 5000, started.argv[3]);
  assert.equal(started.argv.length, 4);
  fake.release();
  await fake.waitForRecords(1);
  assert.equal(fake.records("started").length, 1);
});

test("a config hot reload's gateway_start passes the same start time, not the reload's", () => {
  let clock = 1_800_000_000_000;
  const ticks = { now: () => clock, uptime: () => (clock - 1_799_999_000_000) / 1000 };
  const first = processStartIso(ticks.now, ticks.uptime);
  clock += 3_600_000; // an hour later, a hot reload in the same process
  assert.equal(processStartIso(ticks.now, ticks.uptime), first);
  assert.equal(first, new Date(1_799_999_000_000).toISOString());
});

test("a missing executable is logged, never thrown into OpenClaw", async () => {
  const fake = fakeZettelclaw();
  fakes.push(fake);
  const api = fakeApi({ pluginConfig: { command: path.join(fake.dir, "nope"), logDir: fake.logDir } });
  createPlugin().register(api);
  assert.doesNotThrow(() => api.hooks.session_end({ sessionId: "s-10" }, {}));
  assert.doesNotThrow(() => api.hooks.gateway_start({ port: 1 }, {}));
  for (;;) {
    if (api.warnings.length >= 2) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.match(api.warnings.join("\n"), /could not run .*nope/);
});

test("without config.command, `zettelclaw` is found on PATH", async () => {
  const fake = fakeZettelclaw();
  fakes.push(fake);
  const api = fakeApi({ pluginConfig: { logDir: fake.logDir } });
  createPlugin({ env: { ...process.env, PATH: `${fake.dir}:${process.env.PATH}` } }).register(api);
  api.hooks.session_end({ sessionId: "s-11" }, {});
  const [done] = await fake.waitForRecords(1);
  assert.equal(done.argv[0], "extract");
});
