// `openclaw zettelclaw ...`: one CLI root, declared in the manifest, passing through to the
// executable with its arguments, the terminal's stdio and its exit code.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { createPlugin } from "../index.js";
import { CLI_COMMAND, memoryArgs, passThroughArgs } from "../lib/cli.js";
import { fakeApi, fakeProgram, fakeZettelclaw } from "./helpers.js";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const manifest = JSON.parse(fs.readFileSync(path.join(root, "openclaw.plugin.json"), "utf8"));

test("register declares two CLI roots, zettelclaw and memory, each alone, as the manifest does", () => {
  for (const version of ["2026.2", "2026.9"]) {
    const api = fakeApi({ version });
    createPlugin().register(api);
    // one registration per root: OpenClaw skips a registration with a root it has already
    // (2026.2 has a core `memory` command), and `openclaw zettelclaw` must not go with it
    assert.equal(api.cliRegistrars.length, 2, version);
    const opts = api.cliRegistrars.map((r) => r.opts);
    // 2026.2 reads `commands`; 2026.9 reads `descriptors` (and the manifest's cliCommands)
    assert.deepEqual(opts.map((o) => o.commands), [["zettelclaw"], ["memory"]]);
    assert.deepEqual(opts.flatMap((o) => o.descriptors.map((d) => [d.name, d.hasSubcommands])),
      [["zettelclaw", false], ["memory", false]]);
    assert.deepEqual(manifest.cliCommands, opts.flatMap((o) => o.descriptors));
  }
});

test("memory-core's `openclaw memory` commands become zettelclaw's", () => {
  assert.deepEqual(memoryArgs(["status", "--deep", "--agent", "work", "--json"]).args,
    ["stats", "--agent", "work", "--json"]);
  assert.deepEqual(memoryArgs(["search", "release checklist", "--max-results", "3",
    "--min-score", "0.2"]).args, ["search", "--limit", "3", "--", "release checklist"]);
  assert.deepEqual(memoryArgs(["search", "--query=webhook retries", "--json"]).args,
    ["search", "--json", "--", "webhook retries"]);
  assert.deepEqual(memoryArgs(["get", "Ab3_xYz12345"]).args, ["get", "--", "Ab3_xYz12345"]);
  // memory-core forgets without asking unless --dry-run; zettelclaw asks unless --yes
  assert.deepEqual(memoryArgs(["forget", "--agent", "main", "--session", "s-1"]).args,
    ["forget", "--yes", "--agent", "main", "--session", "s-1", "--"]);
  assert.deepEqual(memoryArgs(["forget", "--session", "s-1", "--dry-run", "--json"]).args,
    ["forget", "--session", "s-1", "--dry-run", "--json", "--"]);
  assert.match(memoryArgs(["index", "--force"]).say, /no index/);
  assert.match(memoryArgs(["search"]).error, /needs a query/);
  assert.match(memoryArgs(["promote"]).error, /openclaw memory promote is not something/);
});

test("`openclaw memory` runs zettelclaw and exits as memory-core does (1 for bad input)", async () => {
  const fake = fakeZettelclaw().behave({
    stats: { stdout: "{\"entries\":{}}\n", code: 0 },
    get: { stderr: "Error: refused: x\n", code: 2 },
  });
  try {
    const settings = { pluginConfig: { command: fake.exe, logDir: fake.logDir } };
    const status = await runAction(fake, { ...settings, word: "memory",
      argv: ["node", "openclaw", "memory", "status", "--json"] });
    assert.equal(status.code, 0);
    assert.equal(status.stdout, "{\"entries\":{}}\n");
    assert.deepEqual(fake.records("finished")[0].argv, ["stats", "--json"]);
    const got = await runAction(fake, { ...settings, word: "memory",
      argv: ["node", "openclaw", "memory", "get", "x"] });
    assert.equal(got.code, 1, "zettelclaw's usage exit 2 is memory-core's 1");
    const unknown = await runAction(fake, { ...settings, word: "memory",
      argv: ["node", "openclaw", "memory", "promote"] });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^Error: openclaw memory promote is not something/);
  } finally {
    fake.cleanup();
  }
});

test("the registrar adds the command synchronously, every option left to zettelclaw", () => {
  const api = fakeApi();
  createPlugin().register(api);
  const program = fakeProgram();
  const result = api.cliRegistrars[0].registrar({ program, config: {} });
  assert.equal(result, undefined, "2026.2 does not await a registrar");
  const cmd = program.commands[CLI_COMMAND];
  assert.ok(cmd && typeof cmd.action === "function");
  assert.deepEqual(cmd.settings.helpOption, [false], "--help is zettelclaw's");
  assert.deepEqual(cmd.settings.allowUnknownOption, [true]);
});

test("the arguments after the command word pass through untouched, -- and all", () => {
  const argv = ["node", "openclaw.mjs", "--profile", "dev", "zettelclaw", "write", "fact", "--",
    "-5 degrees outside"];
  assert.deepEqual(passThroughArgs(argv), ["write", "fact", "--", "-5 degrees outside"]);
  assert.equal(passThroughArgs(["node", "openclaw.mjs", "status"]), null);
});

async function runAction(fake, { argv, pluginConfig, parsed = [], word = CLI_COMMAND }) {
  const out = path.join(fake.dir, "out.txt");
  const err = path.join(fake.dir, "err.txt");
  const outFd = fs.openSync(out, "w");
  const errFd = fs.openSync(err, "w");
  let exited;
  try {
    const api = fakeApi({ pluginConfig });
    const exit = (code) => { exited = code; };
    createPlugin({ cli: { argv, exit, stdio: ["ignore", outFd, errFd] } }).register(api);
    const program = fakeProgram();
    for (const { registrar } of api.cliRegistrars) registrar({ program, config: {} });
    await program.commands[word].action(parsed);
  } finally {
    fs.closeSync(outFd);
    fs.closeSync(errFd);
  }
  return { code: exited, stdout: fs.readFileSync(out, "utf8"), stderr: fs.readFileSync(err, "utf8") };
}

test("running it runs the executable with the arguments and the hooks' environment", async () => {
  const fake = fakeZettelclaw().behave({
    search: { stdout: "{\"id\":\"abc\"}\n", stderr: "a warning\n", code: 3 },
  });
  try {
    const argv = ["node", "openclaw", "zettelclaw", "search", "--json", "--limit", "2", "JS tooling"];
    const result = await runAction(fake, {
      argv, pluginConfig: { command: fake.exe, logDir: fake.logDir },
    });
    assert.equal(result.code, 3, "OpenClaw exits with zettelclaw's exit code");
    assert.equal(result.stdout, "{\"id\":\"abc\"}\n");
    assert.equal(result.stderr, "a warning\n");
    const [rec] = fake.records("finished");
    assert.deepEqual(rec.argv, ["search", "--json", "--limit", "2", "JS tooling"]);
    assert.equal(rec.env.ZETTELCLAW_HOME, fake.logDir, "the same log directory as the hooks");
  } finally {
    fake.cleanup();
  }
});

test("a zettelclaw that cannot be run is one Error line and exit 127", async () => {
  const fake = fakeZettelclaw();
  try {
    const result = await runAction(fake, {
      argv: ["node", "openclaw", "zettelclaw", "subjects"],
      pluginConfig: { command: path.join(fake.dir, "missing-zettelclaw") },
    });
    assert.equal(result.code, 127);
    assert.match(result.stderr, /^Error: cannot run .*missing-zettelclaw.*\n$/);
  } finally {
    fake.cleanup();
  }
});
