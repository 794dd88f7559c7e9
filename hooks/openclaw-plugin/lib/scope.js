// Which sessions had the user in them, and whose they are.
//
// inScope(): the main and direct-message sessions. The same rule as
// zettelclaw/transcripts/scope.py in_scope(): extraction skips the others, and so does the
// handoff (a group chat must not be told what the user discussed in private).
//
// personOfKey(): whose session a key is, the same rule as zettelclaw/people.py person_of_key()
// (docs/people.md): OWNER, another person's id, or NOBODY for every key not known to be the
// owner's nor one person's direct session. Where it is not known to be the owner, it is not the
// owner. The plugin passes every call's key to zettelclaw (`--session-key`), and NO_SESSION_KEY
// when OpenClaw gave none: zettelclaw reads it as NOBODY's (no memory, no change).

export const DEFAULT_SKIP_PREFIXES = ["cron:", "sub:", "hook:"];
export const OWNER = "owner";
export const NOBODY = "nobody:";
const UNKNOWN = "unknown:";
// OpenClaw's own word for a session it cannot scope (isUnscopedSessionKeySentinel)
export const NO_SESSION_KEY = "unknown";

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

/** The key a call passes to zettelclaw: the session's, else NO_SESSION_KEY (nobody's). */
export function sessionKeyArg(sessionKey) {
  return typeof sessionKey === "string" && sessionKey.trim() ? sessionKey.trim() : NO_SESSION_KEY;
}

// zettelclaw/people.py CHANNELS and CHANNEL_ALIASES
const CHANNELS = new Set([
  "a2a", "bluebubbles", "buzz", "clickclack", "discord", "feishu", "googlechat", "imessage",
  "irc", "line", "matrix", "mattermost", "msteams", "nextcloud-talk", "nostr", "qa-channel",
  "raft", "reef", "signal", "slack", "sms", "synology-chat", "telegram", "tlon", "twitch",
  "whatsapp", "zalo", "zalouser"]);
const CHANNEL_ALIASES = {
  lark: "feishu", gchat: "googlechat", "google-chat": "googlechat", imsg: "imessage",
  "internet-relay-chat": "irc", teams: "msteams", nc: "nextcloud-talk", "nc-talk": "nextcloud-talk",
  "twitch-chat": "twitch", zl: "zalo", zlu: "zalouser",
};
const NOT_CHANNELS = new Set(["cron", "hook", "hooks", "subagent", "acp", "node", "dashboard",
  "internal-session-effects", "heartbeat", "global"]);
const GROUP_KINDS = new Set(["group", "channel", "supergroup"]);
const NOT_A_PERSON = new Set([OWNER, NOBODY, UNKNOWN]);

/** A session key as OpenClaw reads it (people.py parse_key), or null for none of an agent's. */
export function parseKey(sessionKey) {
  if (typeof sessionKey !== "string") return null;
  const raw = sessionKey.trim();
  if (raw.slice(0, 6).toLowerCase() !== "agent:") return null;
  const end = raw.indexOf(":", 6);
  if (end === -1) return null;
  const agent = raw.slice(6, end).trim();
  let rest = raw.slice(end + 1);
  if (!agent || !rest || rest.startsWith(":")) return null;
  rest = rest.toLowerCase();
  let thread = null;
  const marker = rest.lastIndexOf(":thread:");
  if (marker !== -1) {
    thread = rest.slice(marker + 8).trim() || null;
    rest = rest.slice(0, marker);
  }
  const out = { agent: agent.toLowerCase(), rest, thread, channel: null, account: null, peer: null };
  const parts = rest.split(":");
  if (parts[0] === "direct" && parts.length >= 2) { // per-peer
    const peer = parts.slice(1).join(":").trim();
    if (parts[1].trim() && peer) out.peer = peer;
    return out;
  }
  const channel = parts[0].trim();
  if (!channel || NOT_CHANNELS.has(channel) || channel === "agent") return out;
  if (parts.length >= 2 && GROUP_KINDS.has(parts[1])) return out;
  if (parts.length >= 4 && (parts[2] === "direct" || parts[2] === "dm")) { // per-account-channel-peer
    const account = parts[1].trim();
    const peer = parts.slice(3).join(":").trim();
    if (account && parts[3].trim() && peer) Object.assign(out, { channel, account, peer });
    return out;
  }
  if (parts.length >= 3 && (parts[1] === "direct" || parts[1] === "dm")) { // per-channel-peer
    const peer = parts.slice(2).join(":").trim();
    if (parts[2].trim() && peer) Object.assign(out, { channel, peer });
  }
  return out;
}

function people(config) {
  const session = config && typeof config.session === "object" && config.session ? config.session : {};
  const mainKey = typeof session.mainKey === "string" && session.mainKey.trim()
    ? session.mainKey.trim().toLowerCase() : "main";
  const channels = new Set(CHANNELS);
  if (config?.channels && typeof config.channels === "object") {
    for (const name of Object.keys(config.channels)) if (name.trim()) channels.add(name.trim().toLowerCase());
  }
  const channelId = (name) => {
    let key = name.trim().toLowerCase();
    key = CHANNEL_ALIASES[key] ?? key;
    return channels.has(key) ? key : null;
  };
  const scoped = (text) => {
    const at = text.indexOf(":");
    if (at > 0) {
      const channel = channelId(text.slice(0, at));
      if (channel) return [channel, text.slice(at + 1).trim()];
    }
    return [null, text.trim()];
  };
  const links = new Map();
  if (session.identityLinks && typeof session.identityLinks === "object") {
    for (const [name, ids] of Object.entries(session.identityLinks)) {
      if (!name.trim() || !Array.isArray(ids)) continue;
      const key = name.trim().toLowerCase();
      if (!links.has(key)) {
        links.set(key, ids.filter((i) => typeof i === "string" && i.trim()).map((i) => i.trim().toLowerCase()));
      }
    }
  }
  const owners = new Set();
  const allow = config?.commands?.ownerAllowFrom;
  for (const entry of Array.isArray(allow) ? allow : []) {
    if (typeof entry !== "string" && typeof entry !== "number") continue;
    const text = String(entry).trim();
    if (!text || text === "*") continue;
    const [channel, rest] = scoped(text);
    if (channel !== null && rest.toLowerCase().startsWith("user:") && !rest.slice(5).includes(":")) continue;
    if (rest && rest !== "*") owners.add(`${channel ?? ""}\n${rest.toLowerCase()}`);
  }
  const ownerSender = (channel, peer) => owners.has(`\n${peer}`)
    || (channel !== null && owners.has(`${channel}\n${peer}`));
  const linkIds = (name) => (links.get(name) ?? []).map(scoped);
  const linkOf = (channel, peer) => {
    if (!links.has(peer)) return null;
    if (channel === null) return peer;
    return linkIds(peer).some(([c]) => c === null || c === channel) ? peer : null;
  };
  const linkListing = (channel, peer) => {
    const candidates = new Set([peer, ...(channel ? [`${channel}:${peer}`] : [])]);
    for (const [name, ids] of links) if (ids.some((i) => candidates.has(i))) return name;
    return null;
  };
  const linkIsOwner = (name) => linkIds(name).some(([channel, peer]) => (channel === null
    ? [...owners].some((o) => o.split("\n")[1] === peer) : ownerSender(channel, peer)));
  return { mainKey, ownerSender, linkOf, linkListing, linkIsOwner };
}

/** Whose session a key is: OWNER, another person's id, or NOBODY (people.py person_of_key;
 * `undefined`, the terminal's, is the owner's there, but no call of the plugin's is the
 * terminal's: see sessionKeyArg). */
export function personOfKey(sessionKey, config = {}) {
  const parsed = parseKey(sessionKey);
  if (parsed === null) return NOBODY;
  const known = people(config);
  if (parsed.peer === null) return parsed.rest === known.mainKey ? OWNER : NOBODY;
  const { channel, peer } = parsed;
  const link = known.linkOf(channel, peer) ?? known.linkListing(channel, peer);
  let person;
  if (link !== null) {
    if (known.linkIsOwner(link)) return OWNER;
    person = link;
  } else if (known.ownerSender(channel, peer)) {
    return OWNER;
  } else {
    person = channel ? `${channel}:${peer}` : peer;
  }
  return NOT_A_PERSON.has(person) ? NOBODY : person;
}
