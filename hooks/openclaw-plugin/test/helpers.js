// Test doubles: a fake `zettelclaw` executable that records how it was run, and fake OpenClaw
// `api` objects in the shapes of 2026.2 and 2026.9.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

// The fake CLI. It appends one JSON record per phase to <dir>/records/ and answers from
// <dir>/behavior.json, keyed by subcommand:
//   {"stdout": "...", "stderr": "...", "code": 0, "sleepMs": 0, "waitFor": "file name"}
// `waitFor` makes it wait (after a "started" record) until that file exists in <dir>, so a
// test can prove the caller did not wait for it. `recall --handoff` answers as the real one:
// the "handoff" behaviour (its sleep, its stdout and an empty line, or its failure), then the
// "recall" behaviour.
const FAKE_SOURCE = String.raw`
const fs = require("node:fs");
const path = require("node:path");
const dir = __dirname;
const args = process.argv.slice(2);
const command = args.find((a) => !a.startsWith("-")) || "";
let behavior = {};
try { behavior = JSON.parse(fs.readFileSync(path.join(dir, "behavior.json"), "utf8"))[command] || {}; } catch {}
function proc() {
  const out = {};
  try {
    const stat = fs.readFileSync("/proc/self/stat", "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    out.ppid = Number(f[1]); out.pgid = Number(f[2]); out.sid = Number(f[3]);
  } catch {}
  for (const fd of [0, 1, 2]) {
    try { out["fd" + fd] = fs.readlinkSync("/proc/self/fd/" + fd); } catch {}
  }
  return out;
}
function record(phase, extra) {
  const recs = path.join(dir, "records");
  fs.mkdirSync(recs, { recursive: true });
  const name = Date.now() + "-" + process.pid + "-" + phase;
  // argv without the receipt's options (--turn, --session-id, --tool-call: receipts.test.js
  // checks them in rawArgv), so the other tests read the command as it was before receipts
  const plain = [];
  for (let i = 0; i < args.length; i += 1) {
    if (args[i] === "--") { plain.push(...args.slice(i)); break; }
    if (command !== "extract" && ["--turn", "--session-id", "--tool-call"].includes(args[i])) {
      i += 1;
      continue;
    }
    plain.push(args[i]);
  }
  const body = JSON.stringify({
    phase, argv: plain, rawArgv: args, command, pid: process.pid, cwd: process.cwd(),
    env: {
      ZETTELCLAW_HOME: process.env.ZETTELCLAW_HOME,
      OPENCLAW_WORKSPACE_DIR: process.env.OPENCLAW_WORKSPACE_DIR,
      OPENCLAW_STATE_DIR: process.env.OPENCLAW_STATE_DIR,
    },
    ...proc(), ...extra,
  });
  fs.writeFileSync(path.join(recs, name + ".tmp"), body);
  fs.renameSync(path.join(recs, name + ".tmp"), path.join(recs, name + ".json"));
}
function readStdin() {
  try { return fs.readFileSync(0, "utf8"); } catch { return null; }
}
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
async function both() {
  const first = JSON.parse(fs.readFileSync(path.join(dir, "behavior.json"), "utf8")).handoff || {};
  if (first.sleepMs) await pause(first.sleepMs);
  if (first.stderr) process.stderr.write(first.stderr);
  if (first.code) return first.code;
  const text = (first.stdout || "").replace(/\n+$/, "");
  await new Promise((r) => process.stdout.write(text ? text + "\n\n" : "\n", r));
  return 0;
}
async function main() {
  const stdin = args.includes("--messages") ? readStdin() : null;
  record("started", { stdin });
  if (command === "recall" && args.includes("--handoff")) {
    const code = await both();
    if (code) {
      record("finished", { stdin });
      process.exitCode = code;
      return;
    }
  }
  if (behavior.waitFor) {
    while (!fs.existsSync(path.join(dir, behavior.waitFor))) {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  if (behavior.sleepMs) await pause(behavior.sleepMs);
  if (behavior.stdout) process.stdout.write(behavior.stdout);
  if (behavior.stderr) process.stderr.write(behavior.stderr);
  record("finished", { stdin });
  process.exitCode = behavior.code || 0;
}
main();
`;

/** A temp dir with an executable `zettelclaw` (the fake) and helpers to script and read it. */
export function fakeZettelclaw() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "zc-plugin-test-"));
  const exe = path.join(dir, "zettelclaw");
  fs.writeFileSync(path.join(dir, "fake.cjs"), FAKE_SOURCE);
  fs.writeFileSync(exe, `#!/bin/sh\nexec "${process.execPath}" "${path.join(dir, "fake.cjs")}" "$@"\n`,
    { mode: 0o755 });
  const logDir = path.join(dir, "log");
  fs.mkdirSync(logDir);
  const fake = {
    dir,
    exe,
    logDir,
    behave(behavior) {
      fs.writeFileSync(path.join(dir, "behavior.json"), JSON.stringify(behavior));
      return fake;
    },
    release(name = "release") {
      fs.writeFileSync(path.join(dir, name), "");
    },
    records(phase) {
      const recs = path.join(dir, "records");
      if (!fs.existsSync(recs)) return [];
      return fs.readdirSync(recs).filter((n) => n.endsWith(".json")).sort()
        .map((n) => JSON.parse(fs.readFileSync(path.join(recs, n), "utf8")))
        .filter((r) => !phase || r.phase === phase);
    },
    async waitForRecords(count, phase = "finished") {
      // no deadline of its own: the test runner's timeout bounds it
      for (;;) {
        const found = fake.records(phase);
        if (found.length >= count) return found;
        await sleep(20);
      }
    },
    cleanup() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return fake;
}

/**
 * A fake OpenClaw plugin api. `version` "2026.9" (no builtin memory tools) or "2026.2"
 * (runtime.tools.createMemorySearchTool / createMemoryGetTool, given as `builtins`).
 */
export function fakeApi({ pluginConfig = {}, version = "2026.9", builtins, stateDir } = {}) {
  const api = {
    id: "zettelclaw",
    pluginConfig,
    hooks: {},
    hookOptions: {},
    toolFactories: [],
    cliRegistrars: [],
    warnings: [],
    logger: {
      info() {},
      debug() {},
      warn(message) { api.warnings.push(message); },
      error(message) { api.warnings.push(message); },
    },
    runtime: {
      state: { resolveStateDir: () => stateDir || path.join(os.homedir(), ".openclaw") },
    },
    on(name, handler, opts) {
      if (api.hooks[name]) throw new Error(`hook ${name} registered twice on one api`);
      api.hooks[name] = handler;
      api.hookOptions[name] = opts;
    },
    registerTool(factory, opts) {
      api.toolFactories.push({ factory, opts });
    },
    internalHooks: {},
    registerHook(events, handler, opts) {
      // as OpenClaw's loader: internal colon-named events only, and a name is required
      for (const event of [events].flat()) {
        if (!event.includes(":")) throw new Error("typed hooks go through api.on");
        if (!opts?.name) throw new Error("hook registration missing name");
        api.internalHooks[event] = handler;
      }
    },
    registerCli(registrar, opts) {
      api.cliRegistrars.push({ registrar, opts });
    },
  };
  if (version === "2026.2") {
    api.builtinCalls = [];
    api.runtime.tools = {
      createMemorySearchTool(options) {
        api.builtinCalls.push({ factory: "search", options });
        return builtins?.search ?? null;
      },
      createMemoryGetTool(options) {
        api.builtinCalls.push({ factory: "get", options });
        return builtins?.get ?? null;
      },
      registerMemoryCli() {},
    };
  }
  return api;
}

/**
 * A stand-in for the Commander program OpenClaw hands a CLI registrar: records each command's
 * chained settings and its action (`program.commands[name]`).
 */
export function fakeProgram() {
  const program = { commands: {} };
  program.command = (name) => {
    const cmd = { name, settings: {}, action: null };
    const chain = new Proxy(cmd, {
      get(target, key) {
        if (key === "action") return (fn) => { target.action = fn; return chain; };
        return (...args) => { target.settings[key] = args; return chain; };
      },
    });
    program.commands[name] = cmd;
    return chain;
  };
  return program;
}

/** The tools the api's registered factory makes for a tool context. */
export function toolsOf(api, ctx = {}) {
  const [{ factory }] = api.toolFactories;
  const tools = factory(ctx);
  return Object.fromEntries(tools.map((t) => [t.name, t]));
}

export function jsonLines(values) {
  return values.map((v) => JSON.stringify(v)).join("\n") + "\n";
}
