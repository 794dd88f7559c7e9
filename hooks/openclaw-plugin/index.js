// zettelclaw as OpenClaw's memory (design §8): plain ESM, no build step, no dependencies.
//
// Every hook and tool shells out to the zettelclaw executable (plugin config `command`, else
// `zettelclaw` on PATH):
//   session_end, before_reset  -> detached `zettelclaw extract ...` (messages on stdin)
//   gateway_start              -> detached `zettelclaw sweep`
//   before_prompt_build        -> `zettelclaw recall --handoff` (the handoff and the entries
//                                 recalled for the message: one process), cached, framed
//                                 together as remembered notes
//   memory_search, memory_get  -> `zettelclaw search --json`, `zettelclaw get --json`
//   memory_forget              -> `zettelclaw forget --json --yes` (the agent's own memory)
//   memory_close               -> `zettelclaw review close|drop|undo --json --yes` (the same)
//   agent:bootstrap (internal)  -> MEMORY.md left out of a session that is not the owner's
//                                 (`zettelclaw get MEMORY.md --session-key KEY` decides)
//   `openclaw zettelclaw ARGS`  -> `zettelclaw ARGS` (the terminal's stdio, its exit code)
// Works with OpenClaw 2026.2 (builtin MEMORY.md search merged in) and 2026.9 (no builtin).

import { resolveSettings } from "./lib/config.js";
import { createHandoffSource, HANDOFF_TIMEOUT_MS } from "./lib/handoff.js";
import { createRecallSource } from "./lib/recall.js";
import { BOOTSTRAP_EVENT, BOOTSTRAP_HOOK, createBootstrapHook } from "./lib/bootstrap.js";
import { createHookHandlers } from "./lib/hooks.js";
import { createTools, TOOL_NAMES } from "./lib/tools.js";
import { registerCli } from "./lib/cli.js";

export const PLUGIN_ID = "zettelclaw";
export const HOOK_NAMES = ["session_end", "before_reset", "gateway_start", "before_prompt_build"];

/** OpenClaw 2026.2's builtin memory tools for this tool context, or nulls (2026.9: gone). */
function builtinTools(api, ctx, logger) {
  const factories = api.runtime?.tools;
  const make = (name) => {
    const factory = factories?.[name];
    if (typeof factory !== "function") return null;
    try {
      return factory({ config: ctx?.config, agentSessionKey: ctx?.sessionKey }) || null;
    } catch (err) {
      logger?.warn?.(`zettelclaw: ${name} failed: ${err.message}`);
      return null;
    }
  };
  return { search: make("createMemorySearchTool"), get: make("createMemoryGetTool") };
}

/**
 * The plugin object. `options.handoffTimeoutMs`, `options.recallTimeoutMs`, `options.env` and
 * `options.cli` (lib/cli.js's argv/exit/stdio) exist for tests.
 * `register` is synchronous and idempotent: OpenClaw calls it several times per process, once
 * per registry (gateway, CLI inspection, tool discovery); a given `api` is wired only once.
 */
export function createPlugin(options = {}) {
  const wired = new WeakSet();

  function register(api) {
    if (!api || wired.has(api)) return;
    wired.add(api);
    const logger = api.logger;
    let settings;
    const getSettings = () => {
      settings ??= resolveSettings(api.pluginConfig, {
        runtime: api.runtime, env: options.env || process.env,
      });
      return settings;
    };
    const timeoutMs = options.handoffTimeoutMs ?? HANDOFF_TIMEOUT_MS;
    const handoff = createHandoffSource(getSettings, { timeoutMs, logger });
    const recall = createRecallSource(getSettings, {
      timeoutMs: options.recallTimeoutMs ?? timeoutMs, logger, handoff,
    });
    const turns = new Map(); // session key -> the turn it is in (receipts of tool answers)
    const handlers = createHookHandlers(getSettings, { logger, handoff, recall, turns });

    for (const name of HOOK_NAMES) {
      const opts = name === "before_prompt_build" ? { timeoutMs: timeoutMs + 2000 } : undefined;
      api.on(name, handlers[name], opts);
    }
    if (typeof api.registerHook === "function") {
      // the owner's MEMORY.md stays out of other people's sessions (lib/bootstrap.js)
      api.registerHook(BOOTSTRAP_EVENT, createBootstrapHook(getSettings, { logger }), {
        name: BOOTSTRAP_HOOK,
        description: "Keeps the owner's MEMORY.md out of the sessions of other people.",
      });
    }
    api.registerTool(
      (ctx) => createTools(getSettings, ctx, {
        builtins: builtinTools(api, ctx, logger), logger, turns,
      }),
      { names: TOOL_NAMES },
    );
    registerCli(api, getSettings, options.cli);
  }

  return {
    id: PLUGIN_ID,
    name: "Zettelclaw",
    description: "Memory as an append-only event log, a nightly briefing and search.",
    register,
  };
}

export default createPlugin();
