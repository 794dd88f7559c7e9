// The typed hooks (design §4.1, §6). Extraction and the sweep are started in the background and
// the handler returns at once; only before_prompt_build waits, and never long.

import { agentArg } from "./config.js";
import { frameHandoff } from "./handoff.js";
import { hideInMessages } from "./private.js";
import { turnIdOf } from "./receipts.js";
import { userMessage } from "./recall.js";
import { spawnDetached } from "./run.js";
import { inScope, NO_SESSION_KEY, sessionKeyArg, skipPrefixes } from "./scope.js";

const SWEEP_DEBOUNCE_MS = 60_000;

function str(value) {
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}

/**
 * The agent a session belongs to. Its key (`agent:<id>:...`) is authoritative: 2026.2's
 * before_reset reports `agentId` as the key's first segment, which is always "agent".
 */
export function agentIdFor(ctx = {}, sessionKey) {
  const match = /^agent:([^:]+):/.exec(str(sessionKey) || "");
  return match ? match[1] : str(ctx.agentId);
}

/** The argv of `zettelclaw extract` for one session. */
export function extractArgs({ sessionId, agentId, sessionKey, sessionFile, reason, inline }) {
  const args = ["extract"];
  if (str(sessionId)) args.push("--session-id", str(sessionId));
  if (str(agentId)) args.push("--agent", str(agentId));
  if (str(sessionKey)) args.push("--session-key", str(sessionKey));
  if (str(sessionFile)) args.push("--session-file", str(sessionFile));
  if (str(reason)) args.push("--reason", str(reason));
  if (inline) args.push("--messages", "-");
  return args;
}

/** before_reset's messages as extract reads them: message objects, or whole transcript events,
 * with what the person kept <private> hidden (lib/private.js). */
export function messagesPayload(messages) {
  const out = [];
  for (const item of messages || []) {
    if (item && typeof item === "object") out.push(item);
  }
  return JSON.stringify(hideInMessages(out)); // <private> spans never reach the stdin file
}

/**
 * When this gateway process started, as an ISO time. `zettelclaw sweep --gateway-start` takes an
 * open conversation quiet since before it as cut off by a crash or stop and extracts it at once.
 * A config hot reload fires gateway_start again in the same process: the time stays the same, so
 * a conversation going on during the reload is not cut short (it settles for 30 minutes).
 * (2026.2's re-exec on some config keys is a new process: an open conversation from before it is
 * taken then, and its continuation after the re-exec extracted later on its own.)
 */
export function processStartIso(now = Date.now, uptime = () => process.uptime()) {
  return new Date(now() - uptime() * 1000).toISOString();
}

export function createHookHandlers(getSettings, {
  logger, handoff, recall, now = Date.now, startedAt = processStartIso, turns,
} = {}) {
  let lastSweep = -Infinity;

  function sessionEnd(event = {}, ctx = {}) {
    const sessionId = str(event.sessionId) || str(ctx.sessionId);
    if (!sessionId) return;
    const reason = str(event.reason);
    const sessionKey = str(event.sessionKey) || str(ctx.sessionKey);
    spawnDetached(getSettings(), extractArgs({
      sessionId,
      agentId: agentIdFor(ctx, sessionKey),
      sessionKey,
      sessionFile: event.sessionFile,
      reason: reason ? `session_end:${reason}` : "session_end",
    }), { logger, label: `extract ${sessionId} (session_end)` });
  }

  function beforeReset(event = {}, ctx = {}) {
    const sessionId = str(ctx.sessionId) || str(event.sessionId);
    const messages = Array.isArray(event.messages) ? event.messages : null;
    const reason = str(event.reason);
    const common = {
      agentId: agentIdFor(ctx, ctx.sessionKey),
      sessionKey: ctx.sessionKey,
      reason: reason ? `before_reset:${reason}` : "before_reset",
    };
    if (messages && messages.length && sessionId) {
      spawnDetached(getSettings(), extractArgs({ ...common, sessionId, inline: true }), {
        input: messagesPayload(messages), logger, label: `extract ${sessionId} (before_reset)`,
      });
    } else if (sessionId || str(event.sessionFile)) {
      // no inline conversation: extract reads the transcript itself
      spawnDetached(getSettings(), extractArgs({
        ...common, sessionId, sessionFile: event.sessionFile,
      }), { logger, label: `extract ${sessionId || event.sessionFile} (before_reset)` });
    }
  }

  function gatewayStart() {
    const at = now();
    if (at - lastSweep < SWEEP_DEBOUNCE_MS) return; // one sweep per start, however many registries
    lastSweep = at;
    // --text: its summary line in hooks.log reads as the other lines there (piped: JSON)
    spawnDetached(getSettings(), ["sweep", "--text", "--gateway-start", startedAt()], {
      logger, label: "sweep (gateway_start)",
    });
  }

  async function beforePromptBuild(event = {}, ctx = {}) {
    // a turn whose session OpenClaw does not name is nobody's: nothing is put before it
    if (sessionKeyArg(ctx.sessionKey) === NO_SESSION_KEY) return undefined;
    if (!inScope(ctx.sessionKey, skipPrefixes(getSettings().config))) return undefined;
    const agent = agentArg(getSettings().config, agentIdFor(ctx, ctx.sessionKey));
    const session = str(ctx.sessionId) || str(ctx.sessionKey) || "";
    // the turn, whose receipt says what was put before the model (receipts.js); the tools
    // the model calls in this session's turn name it too
    const turn = { id: turnIdOf(event, ctx), session: str(ctx.sessionId) };
    if (turns && str(ctx.sessionKey)) {
      turns.delete(str(ctx.sessionKey));
      turns.set(str(ctx.sessionKey), turn.id);
      if (turns.size > 1024) turns.delete(turns.keys().next().value);
    }
    // the handoff and the entries recalled for this message (one process: recall.js), in one
    // frame; a failed or slow recall leaves the handoff alone
    let text;
    let extra;
    try {
      ({ handoff: text, recalled: extra } = recall
        ? await recall(userMessage(event), agent, session, str(ctx.sessionKey), turn)
        : { handoff: await handoff.raw(session, agent, undefined, str(ctx.sessionKey)) });
    } catch (err) {
      logger?.warn?.(`zettelclaw: handoff and recall skipped: ${err.message}`);
    }
    return text || extra ? { prependContext: frameHandoff(text, extra) } : undefined;
  }

  return {
    session_end: sessionEnd,
    before_reset: beforeReset,
    gateway_start: gatewayStart,
    before_prompt_build: beforePromptBuild,
  };
}
