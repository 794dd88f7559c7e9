// runCommand: a captured command that outlives its timeout is killed with everything it
// started (zettelclaw search runs rg), not just the process the plugin spawned.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";

import { runCommand } from "../lib/run.js";

const dirs = [];
after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function alive(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

test("killing the plugin's timed-out search leaves no child of it running (no rg)", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "zc-run-test-"));
  dirs.push(dir);
  const pidFile = path.join(dir, "child.pid");
  // a stand-in for `zettelclaw search`: starts a long child (as it starts rg), then waits
  const exe = path.join(dir, "zettelclaw");
  fs.writeFileSync(exe, `#!/bin/sh\nsleep 60 &\necho $! > "${pidFile}"\nwait\n`, { mode: 0o755 });
  const result = await runCommand({ command: exe, env: process.env }, ["search", "--json"],
    { timeoutMs: 500 });
  assert.equal(result.timedOut, true);
  const childPid = Number(fs.readFileSync(pidFile, "utf8"));
  for (let i = 0; i < 100 && alive(childPid); i++) await sleep(20);
  assert.equal(alive(childPid), false, `the search's child ${childPid} still runs`);
});

test("a command that finishes in time answers as before", async () => {
  const result = await runCommand({ command: "/bin/echo", env: process.env }, ["hello"],
    { timeoutMs: 5000 });
  assert.equal(result.code, 0);
  assert.equal(result.stdout, "hello\n");
});
