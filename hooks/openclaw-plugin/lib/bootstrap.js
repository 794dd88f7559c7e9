// MEMORY.md is the owner's (docs/people.md): its briefing holds the owner's entries alone. OpenClaw
// loads the workspace's MEMORY.md into the system prompt of every session it does not filter
// itself (2026.9 leaves it out of group, channel, cron and sub-agent sessions; a direct-message
// session of another person gets it). The way OpenClaw offers to change that is its
// `agent:bootstrap` internal hook, whose mutable `context.bootstrapFiles` a plugin registers for
// with `api.registerHook` (2026.9 runs plugin internal hooks unless `hooks.internal.enabled` is
// false; 2026.2 only when it is true). The hook takes MEMORY.md out of every session that is not
// known to be the owner's.
//
// Whose a session is, is zettelclaw's rule (zettelclaw.people): the hook asks the CLI the very
// question `memory_get MEMORY.md` asks (`zettelclaw get MEMORY.md --session-key KEY`: read for the
// owner, refused for anyone else), once a minute per session key at most. No key, a refusal, a
// failure or a timeout: not the owner's, MEMORY.md is left out.

import { agentArg } from "./config.js";
import { agentIdFor } from "./hooks.js";
import { runCommand } from "./run.js";

export const BOOTSTRAP_HOOK = "zettelclaw-owner-memory";
export const BOOTSTRAP_EVENT = "agent:bootstrap";
const MEMORY_FILES = new Set(["MEMORY.md", "memory.md"]);
const CHECK_TIMEOUT_MS = 10_000;
const KEEP_MS = 60_000;

function str(value) {
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}

/** Whether a bootstrap file is the workspace's long-term memory file. */
export function isMemoryFile(file) {
  return Boolean(file && typeof file === "object" && MEMORY_FILES.has(file.name));
}

/**
 * The `agent:bootstrap` handler. `now` and `timeoutMs` exist for tests.
 */
export function createBootstrapHook(getSettings, { logger, now = Date.now,
  timeoutMs = CHECK_TIMEOUT_MS } = {}) {
  const known = new Map(); // session key + workspace -> {owner, at}

  async function ownersSession(sessionKey, context) {
    if (!sessionKey) return false;
    const workspaceDir = str(context.workspaceDir);
    const slot = `${sessionKey}\u0000${workspaceDir || ""}`;
    const seen = known.get(slot);
    if (seen && now() - seen.at < KEEP_MS) return seen.owner;
    const settings = getSettings();
    const args = ["get", "--json", "--lines", "1"];
    const agent = agentArg(settings.config, agentIdFor(context, sessionKey));
    if (agent) args.push("--agent", agent);
    args.push("--session-key", sessionKey, "--", "MEMORY.md");
    const env = workspaceDir ? { ...settings.env, OPENCLAW_WORKSPACE_DIR: workspaceDir } : settings.env;
    const result = await runCommand(settings, args, { timeoutMs, env });
    const owner = result.code === 0;
    if (result.code === 0 || result.code === 2) known.set(slot, { owner, at: now() });
    else logger?.warn?.(`zettelclaw: MEMORY.md left out of ${sessionKey}: whose session it is `
      + `could not be told (${result.error?.message || `exit ${result.code}`})`);
    return owner;
  }

  return async function bootstrap(event = {}) {
    const context = event?.context;
    if (!context || typeof context !== "object") return;
    const files = context.bootstrapFiles;
    if (!Array.isArray(files) || !files.some(isMemoryFile)) return;
    const sessionKey = str(context.sessionKey); // (the event's own may be a session id)
    if (await ownersSession(sessionKey, context)) return;
    context.bootstrapFiles = files.filter((file) => !isMemoryFile(file));
  };
}
