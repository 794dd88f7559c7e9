// Running the zettelclaw executable: detached background jobs and short captured commands.
//
// Background jobs (extract, sweep) must outlive the gateway: OpenClaw gives all shutdown
// handlers two seconds together, and a SIGTERM to the gateway must not reach them. So each is
// spawned detached (its own session and process group), with stdin a file descriptor whose
// content is already complete (never a pipe the gateway would have to keep feeding), stdout
// and stderr appended to <logDir>/hooks.log (or ignored when there is no log directory yet),
// and unref'd so the gateway never waits for it.

import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const HOOK_LOG = "hooks.log";
const HOOK_LOG_MAX_BYTES = 1024 * 1024;

function openHookLog(logDir) {
  if (!logDir) return null;
  const file = path.join(logDir, HOOK_LOG);
  try {
    if (!fs.statSync(logDir).isDirectory()) return null;
  } catch {
    return null;
  }
  try {
    if (fs.statSync(file).size > HOOK_LOG_MAX_BYTES) fs.renameSync(file, `${file}.1`);
  } catch {
    // no log yet
  }
  // never through a symlink, never blocking on a FIFO: only a regular file is appended to
  const { O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
  let fd = null;
  try {
    fd = fs.openSync(file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o600);
    if (fs.fstatSync(fd).isFile()) return fd;
  } catch {
    // a symlink (ELOOP), a FIFO without a reader (ENXIO), a directory...
  }
  closeQuietly(fd);
  return null;
}

const STDIN_PREFIX = ".zettelclaw-stdin-";
const STDIN_DIR = /^\.zettelclaw-stdin-(\d+)-.{6}$/;
const LEGACY_STDIN_DIR = /^\.zettelclaw-stdin-.{6}$/;
const LEGACY_MAX_AGE_MS = 60 * 60 * 1000;

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === "EPERM"; // alive, someone else's
  }
}

/**
 * Remove the temp directories of earlier gateways killed between writing the messages and
 * unlinking them (the name carries the writer's pid; a live writer's directory stays). Those
 * left before names carried a pid go once they are an hour old.
 */
function removeStaleStdinDirs(dir) {
  let names;
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(STDIN_PREFIX)) continue;
    const file = path.join(dir, name);
    try {
      const match = STDIN_DIR.exec(name);
      if (match) {
        const pid = Number(match[1]);
        if (pid === process.pid || pidAlive(pid)) continue;
      } else if (!LEGACY_STDIN_DIR.test(name)
        || Date.now() - fs.statSync(file).mtimeMs < LEGACY_MAX_AGE_MS) {
        continue;
      }
      fs.rmSync(file, { recursive: true, force: true });
    } catch {
      // someone else's, or gone already
    }
  }
}

/**
 * A read-only descriptor holding exactly `data`: a private temp file, unlinked at once, so the
 * child reads its stdin to the end even if this process is gone by then. A gateway killed
 * between writing and unlinking leaves the directory behind (the conversation, in clear): the
 * next call removes it.
 */
function stdinFd(data, logDir) {
  const dirs = [];
  if (logDir) dirs.push(logDir);
  dirs.push(os.tmpdir());
  for (const dir of dirs) {
    removeStaleStdinDirs(dir);
    let tmpDir;
    try {
      tmpDir = fs.mkdtempSync(path.join(dir, `${STDIN_PREFIX}${process.pid}-`));
      const file = path.join(tmpDir, "messages.json");
      fs.writeFileSync(file, data, { mode: 0o600 });
      const fd = fs.openSync(file, "r");
      fs.rmSync(tmpDir, { recursive: true, force: true });
      return fd;
    } catch {
      if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
    }
  }
  return null;
}

function closeQuietly(fd) {
  if (typeof fd !== "number") return;
  try {
    fs.closeSync(fd);
  } catch {
    // already closed
  }
}

/**
 * Start `settings.command args...` in the background and return at once.
 * `input` (a string) becomes the child's whole stdin. Returns the child's pid, or null when it
 * could not be started; never throws. `logger` gets one line per start and per failure.
 */
export function spawnDetached(settings, args, { input, logger, label } = {}) {
  const name = label || args[0];
  let out = null;
  let inFd = null;
  try {
    out = openHookLog(settings.logDir);
    if (input !== undefined) {
      inFd = stdinFd(input, settings.logDir);
      if (inFd === null) throw new Error("cannot write the messages for stdin");
    }
    if (out !== null) {
      fs.writeSync(out, `${new Date().toISOString()} start ${name}: ${settings.command} `
        + `${args.map(describeArg).join(" ")}\n`);
    }
    const child = spawn(settings.command, args, {
      detached: true,
      stdio: [inFd ?? "ignore", out ?? "ignore", out ?? "ignore"],
      env: settings.env,
      cwd: settings.logDir && fs.existsSync(settings.logDir) ? settings.logDir : os.homedir(),
      windowsHide: true,
    });
    child.on("error", (err) => {
      logger?.warn?.(`zettelclaw: could not run ${settings.command} (${name}): ${err.message}`);
    });
    child.unref();
    return child.pid ?? null;
  } catch (err) {
    logger?.warn?.(`zettelclaw: could not start ${name}: ${err.message}`);
    return null;
  } finally {
    closeQuietly(inFd);
    closeQuietly(out);
  }
}

function describeArg(arg) {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg);
}

/**
 * Run `settings.command args...`, capturing its output, killed after `timeoutMs`.
 * Resolves {code, signal, stdout, stderr, timedOut, error}; never rejects.
 *
 * The command runs in its own process group, and a timeout or an abort kills the whole group:
 * `zettelclaw search` runs `rg`, which must not go on reading the log after its parent is gone.
 */
export function runCommand(settings, args, { timeoutMs = 30000, env, signal } = {}) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(settings.command, args, {
        stdio: ["ignore", "pipe", "pipe"],
        env: env || settings.env,
        detached: process.platform !== "win32", // its own process group, killed as one
        windowsHide: true,
      });
    } catch (err) {
      resolve({ code: null, signal: null, stdout: "", stderr: "", timedOut: false, error: err });
      return;
    }
    const stdout = [];
    const stderr = [];
    let done = false;
    let timedOut = false;
    const finish = (result) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener?.("abort", onAbort);
      resolve({
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8"),
        timedOut,
        ...result,
      });
    };
    const kill = () => {
      try {
        if (process.platform !== "win32" && child.pid) process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch {
        try {
          child.kill("SIGKILL"); // the group is gone; the child itself, in case
        } catch {
          // gone already
        }
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
      finish({ code: null, signal: "SIGKILL", error: new Error(`timed out after ${timeoutMs} ms`) });
    }, timeoutMs);
    const onAbort = () => {
      kill();
      finish({ code: null, signal: "SIGKILL", error: new Error("aborted") });
    };
    if (signal?.aborted) onAbort();
    signal?.addEventListener?.("abort", onAbort, { once: true });
    child.stdout.on("data", (chunk) => stdout.push(chunk));
    child.stderr.on("data", (chunk) => stderr.push(chunk));
    child.on("error", (err) => finish({ code: null, signal: null, error: err }));
    child.on("close", (code, sig) => finish({ code, signal: sig, error: null }));
  });
}

/** The message of a failed command: its `Error: ...` line, else the end of stderr. */
export function failureMessage(result, what) {
  if (result.error && result.code === null) {
    return `${what}: ${result.error.message}`;
  }
  const lines = (result.stderr || "").split("\n").map((l) => l.trim()).filter(Boolean);
  const error = lines.find((l) => l.startsWith("Error:"));
  const text = error ? error.slice("Error:".length).trim() : lines.slice(-2).join(" ");
  return `${what} failed${text ? `: ${text}` : ` (exit ${result.code})`}`;
}
