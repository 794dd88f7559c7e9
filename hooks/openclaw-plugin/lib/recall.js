// Recall each turn (issue 13): the few entries relevant to what the person just said, put after
// the handoff in the same framed block (handoff.js). One process per prompt at most:
// `zettelclaw recall --handoff --text -- MESSAGE` answers both (the handoff, an empty line, the
// recalled entries); `recall --text` alone when the handoff is cached, `handoff` alone when the
// recall is (or there is nothing to recall). Cached per agent, message and log stamp (same
// message, same log: same bytes). A failure or delay of the recall gives no recall: the
// handoff still goes when its part came complete.

import fs from "node:fs";

import { stripPrivate } from "./private.js";
import { appendRepeat, receiptArgs } from "./receipts.js";
import { runCommand } from "./run.js";

export const RECALL_TIMEOUT_MS = 3000;
const CACHE_LIMIT = 256;
const MAX_MESSAGE_CHARS = 1000; // the ranker's query limit (rank.MAX_QUERY_CHARS)

function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part) => part && part.type === "text" && typeof part.text === "string")
    .map((part) => part.text).join("\n");
}

/**
 * The person's message from before_prompt_build's event: `currentUserMessage` where OpenClaw
 * gives it (2026.9; an empty string means no textual request), else the prompt, else the last
 * user text among the messages. (2026.9's embedded runner passes the history *before* this
 * turn as `messages`: their last user text is the previous message, so the prompt comes first.)
 */
export function userMessage(event = {}) {
  if (typeof event.currentUserMessage === "string") {
    return stripPrivate(event.currentUserMessage).trim();
  }
  let text = typeof event.prompt === "string" ? event.prompt : "";
  if (!text.trim() && Array.isArray(event.messages)) {
    for (let i = event.messages.length - 1; i >= 0; i -= 1) {
      const message = event.messages[i];
      const inner = message && message.message && typeof message.message === "object"
        ? message.message : message;
      if (inner && inner.role === "user") {
        text = textOf(inner.content);
        if (text.trim()) break;
      }
    }
  }
  // a channel's envelope before the words ("[Mon 2026-11-23 15:40 UTC] ...") is not the message
  return stripPrivate(text.replace(/^\s*\[[^\]\n]{0,80}\]\s*/, "")).trim();
}

/** Whether the plugin config leaves recall on (`recall.enabled`, default true). */
export function recallEnabled(config) {
  const recall = config && typeof config.recall === "object" ? config.recall : {};
  return recall?.enabled !== false;
}

function logStamp(logFile) {
  try {
    const st = fs.statSync(logFile);
    return `${st.mtimeMs}:${st.size}:${st.ino}`;
  } catch {
    return null;
  }
}

/**
 * `zettelclaw recall --handoff` output as {handoff, recalled, complete}: the handoff part is
 * complete once its empty line has come (the handoff block never holds one), even when the
 * run was cut short; the recalled part counts only from a run that finished well.
 */
export function splitTurn(stdout) {
  const text = String(stdout || "");
  const end = text.startsWith("\n") ? 0 : text.indexOf("\n\n");
  if (end < 0) return { handoff: undefined, recalled: undefined, complete: false };
  const handoff = text.slice(0, end).trim() || undefined;
  const recalled = text.slice(end).trim() || undefined;
  return { handoff, recalled, complete: true };
}

function why(result) {
  return result.error ? result.error.message
    : (result.stderr.trim().split("\n").pop() || `exit ${result.code}`);
}

/**
 * A function `(message, agent, sessionId) => Promise<{handoff, recalled}>`: the unframed
 * handoff text (from `handoff`, the handoff source, whose cache it shares) and the recall
 * block for `message` on behalf of `agent`; either is undefined when there is none, on
 * failure or timeout.
 */
export function createRecallSource(getSettings, { timeoutMs = RECALL_TIMEOUT_MS, logger, handoff } = {}) {
  const cache = new Map(); // agent + message -> {stamp, promise of {text, ok}}

  // the recall part of a finished run, or nothing (logged) when it did not finish well; `turn`
  // is the turn whose run it is (its receipt: zettelclaw wrote it)
  function recalledOf(result, text, turn) {
    if (result.timedOut) {
      logger?.warn?.(`zettelclaw: recall took longer than ${timeoutMs} ms; this turn goes without it`);
    } else if (result.code !== 0) {
      logger?.warn?.(`zettelclaw: recall failed: ${why(result)}`);
    } else {
      return { text: text || undefined, ok: true, turn };
    }
    return { text: undefined, ok: false };
  }

  // cached at once, so turns racing with the same message share the run; a failure is not kept
  function remember(key, stamp, promise) {
    cache.delete(key);
    cache.set(key, { stamp, promise });
    if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value);
    promise.then((value) => {
      if (!value.ok && cache.get(key)?.promise === promise) cache.delete(key);
    });
    return promise;
  }

  function command(words, agent, withHandoff, sessionKey, turn) {
    const args = withHandoff ? ["recall", "--handoff", "--text"] : ["recall", "--text"];
    if (agent) args.push("--agent", agent);
    // whose session it is: only that person's memory comes (docs/people.md)
    if (sessionKey) args.push("--session-key", sessionKey);
    args.push(...receiptArgs(turn)); // zettelclaw receipts what it prints
    args.push("--", words);
    return args;
  }

  // a part this turn injects as an earlier turn's run printed it: its receipt says so
  function receiptRepeat(settings, turn, part, value, agent, sessionKey) {
    if (!turn?.id || !value?.text || !value.turn || value.turn === turn.id) return;
    appendRepeat(settings, { turn, part, repeats: value.turn, agent, sessionKey }, { logger });
  }

  return async function turn(message, agent, sessionId, sessionKey, turnInfo) {
    const settings = getSettings();
    const words = recallEnabled(settings.config)
      ? String(message || "").slice(0, MAX_MESSAGE_CHARS).trim() : "";
    const stamp = words ? logStamp(settings.logFile) : null; // no log: nothing to recall
    const key = `${agent || ""}\n${sessionKey || ""}\n${words}`;
    const known = stamp === null ? undefined : cache.get(key);
    let recalled;
    let text;
    if (stamp === null || (known && known.stamp === stamp)) {
      recalled = known?.promise;
      // cached, or `zettelclaw handoff` alone
      text = handoff.part(sessionId, agent, undefined, sessionKey, turnInfo);
    } else if (handoff.cached(sessionId, agent, sessionKey)) { // the handoff is known: the recall alone
      recalled = remember(key, stamp, runCommand(settings, command(words, agent, false, sessionKey, turnInfo), { timeoutMs })
        .then((result) => recalledOf(result, result.stdout.trim(), turnInfo?.id)));
      text = handoff.part(sessionId, agent, undefined, sessionKey, turnInfo);
    } else { // both in one process; its handoff part is cached by the handoff source
      const run = runCommand(settings, command(words, agent, true, sessionKey, turnInfo), { timeoutMs });
      recalled = remember(key, stamp, run.then((result) => {
        const part = splitTurn(result.stdout);
        // an incomplete handoff part: the run failed before recall began (said below)
        return part.complete ? recalledOf(result, part.recalled, turnInfo?.id)
          : { text: undefined, ok: false };
      }));
      text = handoff.part(sessionId, agent, () => run.then((result) => {
        const part = splitTurn(result.stdout);
        if (part.complete) return { text: part.handoff, ok: true, turn: turnInfo?.id };
        if (result.timedOut) {
          logger?.warn?.(`zettelclaw: handoff took longer than ${timeoutMs} ms; this turn goes without it`);
        } else {
          logger?.warn?.(`zettelclaw: handoff failed: ${why(result)}`);
        }
        return { text: undefined, ok: false };
      }), sessionKey, turnInfo);
    }
    const handoffPart = await text;
    const recalledPart = recalled ? await recalled : undefined;
    receiptRepeat(settings, turnInfo, "handoff", handoffPart, agent, sessionKey);
    receiptRepeat(settings, turnInfo, "recall", recalledPart, agent, sessionKey);
    return { handoff: handoffPart?.text, recalled: recalledPart?.text };
  };
}
