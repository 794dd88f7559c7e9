// Which sessions had the user in them: the main and direct-message sessions. The same rule as
// zettelclaw/transcripts/scope.py in_scope(): extraction skips the others, and so does the handoff
// (a group chat must not be told what the user discussed in private).

export const DEFAULT_SKIP_PREFIXES = ["cron:", "sub:", "hook:"];

export function skipPrefixes(config) {
  const configured = config?.extraction?.skipSessionTypes;
  if (Array.isArray(configured) && configured.every((p) => typeof p === "string")) return configured;
  return DEFAULT_SKIP_PREFIXES;
}

export function inScope(sessionKey, prefixes = DEFAULT_SKIP_PREFIXES) {
  if (typeof sessionKey !== "string" || !sessionKey.trim()) return true; // unknown: benefit of the doubt
  const key = sessionKey.trim().toLowerCase();
  const skip = prefixes.map((p) => String(p).trim().toLowerCase()).filter(Boolean);
  if (skip.some((p) => key.startsWith(p))) return false;
  const parts = key.split(":");
  const rest = parts[0] === "agent" && parts.length > 2 ? parts.slice(2).join(":") : key;
  if (skip.some((p) => rest.startsWith(p))) return false;
  if (rest.startsWith("subagent:") || parts.includes("subagent")) return false;
  if (parts.includes("group") || parts.includes("channel") || parts.includes("supergroup")) return false;
  return !key.includes("dreaming-narrative");
}
