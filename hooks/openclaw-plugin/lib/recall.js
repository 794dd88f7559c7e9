// Recall each turn (issue 13): `zettelclaw recall --text -- MESSAGE`, the few entries relevant
// to what the person just said, put after the handoff in the same framed block (handoff.js).
// Cached per agent, message and log stamp (same message, same log: same bytes). Any failure or
// delay gives nothing: the handoff still goes.

import fs from "node:fs";

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
  if (typeof event.currentUserMessage === "string") return event.currentUserMessage.trim();
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
  return text.replace(/^\s*\[[^\]\n]{0,80}\]\s*/, "").trim();
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
 * A function `(message, agent) => Promise<string|undefined>`: the recall block (unframed) for
 * `message` on behalf of `agent`, undefined when nothing qualifies or on failure or timeout.
 */
export function createRecallSource(getSettings, { timeoutMs = RECALL_TIMEOUT_MS, logger } = {}) {
  const cache = new Map(); // agent + message -> {stamp, text}

  return async function recall(message, agent) {
    const settings = getSettings();
    if (!recallEnabled(settings.config)) return undefined;
    const words = String(message || "").slice(0, MAX_MESSAGE_CHARS).trim();
    if (!words) return undefined;
    const stamp = logStamp(settings.logFile);
    if (stamp === null) return undefined; // no log: nothing to recall
    const key = `${agent || ""}\n${words}`;
    const cached = cache.get(key);
    if (cached && cached.stamp === stamp) return cached.text;
    const args = ["recall", "--text"];
    if (agent) args.push("--agent", agent);
    args.push("--", words);
    const result = await runCommand(settings, args, { timeoutMs });
    if (result.timedOut) {
      logger?.warn?.(`zettelclaw: recall took longer than ${timeoutMs} ms; this turn goes without it`);
      return undefined;
    }
    if (result.code !== 0) {
      const why = result.error ? result.error.message : (result.stderr.trim().split("\n").pop() || `exit ${result.code}`);
      logger?.warn?.(`zettelclaw: recall failed: ${why}`);
      return undefined;
    }
    const text = result.stdout.trim() || undefined;
    cache.delete(key);
    cache.set(key, { stamp, text });
    if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value);
    return text;
  };
}
