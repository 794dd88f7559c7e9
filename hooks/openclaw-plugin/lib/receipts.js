// Receipts (docs/receipts.md): every time memory is put before the model, one line in
// receipts/YYYY-MM-DD.jsonl beside the log. zettelclaw writes them itself when it runs for a
// turn (`--turn ID`): what it printed, by id and why. When this plugin reuses what it cached
// (the same message on the same log, the handoff of an unchanged log), no process runs: the
// plugin appends a line of its own naming the turn whose run it repeats and the part
// (`handoff` or `recall`). One write of one line with O_APPEND, as hooks.log is appended to:
// no lock, and a receipt that cannot be written costs the turn nothing but a warning.

import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

function str(value) {
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}

/**
 * The turn's id: OpenClaw 2026.9's `currentUserMessageId` (the same across rebuilds and
 * retries of one admitted request), else the run's id (`ctx.runId`), else a new one (2026.2
 * gives neither on every path: each prompt build is then a turn of its own).
 */
export function turnIdOf(event = {}, ctx = {}) {
  return str(event.currentUserMessageId) || str(ctx.runId)
    || `t-${Date.now().toString(36)}-${crypto.randomBytes(4).toString("hex")}`;
}

/** The argv that asks zettelclaw to receipt what it answers for `turn` ({id, session, call}). */
export function receiptArgs(turn) {
  const args = [];
  if (!turn || !str(turn.id)) return args;
  args.push("--turn", str(turn.id));
  if (str(turn.session)) args.push("--session-id", str(turn.session));
  if (str(turn.call)) args.push("--tool-call", str(turn.call));
  return args;
}

function day(ms) {
  return new Date(ms).toISOString().slice(0, 10);
}

function stamp(ms) {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/**
 * Append the line saying that `turn` had `part` ("handoff" or "recall") as the run of turn
 * `repeats` printed it. Never throws.
 */
export function appendRepeat(settings, { turn, part, repeats, agent, sessionKey }, {
  logger, now = Date.now,
} = {}) {
  try {
    const at = now();
    const line = { at: stamp(at), turn: turn.id, by: "plugin", part, repeats };
    if (str(agent)) line.agent = str(agent).split(",")[0];
    if (str(turn.session)) line.session = str(turn.session);
    if (str(sessionKey)) line.session_key = str(sessionKey);
    const dir = path.join(path.dirname(settings.logFile), "receipts");
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, `${day(at)}.jsonl`);
    const { O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW } = fs.constants;
    const fd = fs.openSync(file, O_WRONLY | O_APPEND | O_CREAT | (O_NOFOLLOW || 0), 0o600);
    try {
      fs.writeSync(fd, `${JSON.stringify(line)}\n`);
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    logger?.warn?.(`zettelclaw: no receipt written: ${err.message}`);
  }
}
