// `openclaw zettelclaw ...`: one CLI root, declared in the manifest, passing through to the
// executable with its arguments, the terminal's stdio and its exit code.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { createPlugin } from "../index.js";
import { CLI_COMMAND, passThroughArgs } from "../lib/cli.js";
import { fakeApi, fakeProgram, fakeZettelclaw } from "./helpers.js";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const manifest = JSON.parse(fs.readFileSync(path.join(root, "openclaw.plugin.json"), "utf8"));

test("register declares one CLI root, zettelclaw, on both versions, as the manifest does", () => {
  for (const version of ["2026.2", "2026.9"]) {
    const api = fakeApi({ version });
    createPlugin().register(api);
    assert.equal(api.cliRegistrars.length, 1, version);
    const { opts } = api.cliRegistrars[0];
    // 2026.2 reads `commands`; 2026.9 reads `descriptors` (and the manifest's cliCommands)
    assert.deepEqual(opts.commands, ["zettelclaw"]);
    assert.deepEqual(opts.descriptors.map((d) => [d.name, d.hasSubcommands]), [["zettelclaw", false]]);
    assert.deepEqual(manifest.cliCommands, opts.descriptors);
  }
  assert.ok(!manifest.cliCommands.some((c) => c.name === "memory"), "memory is memory-core's");
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

async function runAction(fake, { argv, pluginConfig, parsed = [] }) {
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
    api.cliRegistrars[0].registrar({ program, config: {} });
    await program.commands[CLI_COMMAND].action(parsed);
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
