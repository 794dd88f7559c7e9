// Where the plugin says the log directory is: always one absolute path, the same one the
// Python side resolves (zettelclaw/paths.py), handed to every child as ZETTELCLAW_HOME.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";

import { resolveSettings } from "../lib/config.js";
import { spawnDetached } from "../lib/run.js";

test("a relative logDir is taken from the directory of OpenClaw's config file", () => {
  const env = { HOME: "/home/u", OPENCLAW_CONFIG_PATH: "/srv/openclaw/openclaw.json" };
  const settings = resolveSettings({ logDir: "memory" }, { env });
  assert.equal(settings.logDir, "/srv/openclaw/memory");
  assert.equal(settings.env.ZETTELCLAW_HOME, "/srv/openclaw/memory");
});

test("a relative ZETTELCLAW_HOME reaches children as an absolute path", () => {
  const settings = resolveSettings({}, { env: { HOME: "/home/u", ZETTELCLAW_HOME: "rel/mem" } });
  assert.equal(settings.logDir, path.resolve("rel/mem"));
  assert.equal(settings.env.ZETTELCLAW_HOME, path.resolve("rel/mem"));
});

test("a symlinked hooks.log is not written through", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "zc-hooklog-"));
  const target = path.join(dir, "bashrc");
  fs.writeFileSync(target, "export PATH=/usr/bin\n");
  fs.mkdirSync(path.join(dir, "log"));
  fs.symlinkSync(target, path.join(dir, "log", "hooks.log"));
  const settings = { command: "true", logDir: path.join(dir, "log"), env: process.env };

  const pid = spawnDetached(settings, ["sweep"]);

  assert.ok(pid);  // the job still starts; its "start" line would have been written by now
  assert.equal(fs.readFileSync(target, "utf8"), "export PATH=/usr/bin\n");
  fs.rmSync(dir, { recursive: true, force: true });
});
