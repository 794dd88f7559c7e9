// Where things are: the zettelclaw executable, the log directory, the environment children get.
//
// The Python side resolves the same paths (zettelclaw/paths.py): logDir from the plugin config,
// else $ZETTELCLAW_HOME, else <OpenClaw state dir>/zettelclaw. When the config names a logDir
// the plugin hands it to every child as ZETTELCLAW_HOME, so both sides agree by construction.
// The directory handed on is always absolute: a relative logDir is taken from the directory of
// OpenClaw's config file (as paths.py does), a relative $ZETTELCLAW_HOME from the gateway's
// current directory (children run elsewhere, in the log directory).

import os from "node:os";
import path from "node:path";

export const DEFAULT_COMMAND = "zettelclaw";

/** `~` and `$VAR` / `${VAR}` expanded the way Python's expanduser + expandvars do. */
export function expandPath(value, env = process.env) {
  if (typeof value !== "string" || value === "") return value;
  let out = value;
  if (out === "~" || out.startsWith("~/")) {
    const home = env.HOME || os.homedir();
    out = home + out.slice(1);
  }
  return out.replace(/\$(\w+)|\$\{(\w+)\}/g, (match, a, b) => {
    const name = a || b;
    return Object.hasOwn(env, name) ? env[name] : match;
  });
}

function stateDir(runtime, env) {
  if (env.OPENCLAW_STATE_DIR) return expandPath(env.OPENCLAW_STATE_DIR, env);
  try {
    const resolved = runtime?.state?.resolveStateDir?.(env);
    if (typeof resolved === "string" && resolved) return resolved;
  } catch {
    // an older or stripped runtime: fall back to the default below
  }
  return path.join(env.HOME || os.homedir(), ".openclaw");
}

const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * The `--agent` value for a command run on behalf of `agentId`: that agent, then the agents
 * the plugin config's `sharing` lets it also read (`{"main": ["work"]}` gives "main,work").
 * Undefined without an agent (zettelclaw then takes OpenClaw's default agent). Never "all",
 * zettelclaw's word for every agent: OpenClaw accepts an agent whose id is `all`, and it goes
 * as `agent:all`, the form that names one agent. A shared "all" is dropped.
 */
export function agentArg(config, agentId) {
  if (typeof agentId !== "string" || !AGENT_ID.test(agentId.trim())) return undefined;
  const own = agentId.trim();
  const sharing = config && typeof config.sharing === "object" ? config.sharing : {};
  const shared = Object.hasOwn(sharing, own) && Array.isArray(sharing[own]) ? sharing[own] : [];
  const ids = [own];
  for (const other of shared) {
    const id = typeof other === "string" ? other.trim() : "";
    if (AGENT_ID.test(id) && id.toLowerCase() !== "all" && !ids.includes(id)) ids.push(id);
  }
  return ids.map((id) => (id.toLowerCase() === "all" ? `agent:${id}` : id)).join(",");
}

/** OpenClaw's config file, as paths.py finds it: $OPENCLAW_CONFIG_PATH or <state>/openclaw.json. */
function configPath(runtime, env) {
  if (env.OPENCLAW_CONFIG_PATH) return path.resolve(expandPath(env.OPENCLAW_CONFIG_PATH, env));
  return path.resolve(stateDir(runtime, env), "openclaw.json");
}

/**
 * Everything the hooks and tools need, from `api.pluginConfig` and `api.runtime`.
 * Returns {command, logDir, logFile, env, config}.
 */
export function resolveSettings(pluginConfig, { runtime, env = process.env } = {}) {
  const config = pluginConfig && typeof pluginConfig === "object" ? pluginConfig : {};
  const command = typeof config.command === "string" && config.command.trim()
    ? expandPath(config.command.trim(), env)
    : DEFAULT_COMMAND;
  const childEnv = { ...env };
  let logDir;
  if (typeof config.logDir === "string" && config.logDir.trim()) {
    logDir = path.resolve(path.dirname(configPath(runtime, env)),
      expandPath(config.logDir.trim(), env));
    childEnv.ZETTELCLAW_HOME = logDir;
  } else if (env.ZETTELCLAW_HOME) {
    logDir = path.resolve(expandPath(env.ZETTELCLAW_HOME, env));
    childEnv.ZETTELCLAW_HOME = logDir;
  } else {
    const state = stateDir(runtime, env);
    logDir = path.join(state, "zettelclaw");
    if (!env.OPENCLAW_STATE_DIR && state) childEnv.OPENCLAW_STATE_DIR = state;
  }
  return { command, logDir, logFile: path.join(logDir, "log.jsonl"), env: childEnv, config };
}
