// memory_search and memory_get (design §9): the same names and base parameters as OpenClaw's
// builtin tools, answered by `zettelclaw search --json` and `zettelclaw get --json`.
//
// On OpenClaw 2026.2 the runtime still offers the builtin MEMORY.md search
// (`api.runtime.tools.createMemorySearchTool`): its semantic results for memory files are merged
// with zettelclaw's. On 2026.9 it is gone and zettelclaw's own ranked search, which already
// covers MEMORY.md and memory/*.md, answers alone.

import { withoutGenerated } from "./briefing.js";
import { agentArg } from "./config.js";
import { agentIdFor } from "./hooks.js";
import { receiptArgs } from "./receipts.js";
import { failureMessage, runCommand } from "./run.js";
import { OWNER, personOfKey } from "./scope.js";

export const TOOL_NAMES = ["memory_search", "memory_get", "memory_forget", "memory_close"];
export const ENTRY_TYPES = ["task", "fact", "decision", "question", "handoff"];
const DEFAULT_MAX_RESULTS = 10;
const MAX_RESULTS_LIMIT = 50;
const TOOL_TIMEOUT_MS = 30000;

export const SEARCH_PARAMETERS = {
  type: "object",
  additionalProperties: false,
  properties: {
    query: {
      type: "string",
      description: "Keywords or a question. Ranks log entries and MEMORY.md / memory/*.md by "
        + "relevance. Optional when a filter (type, subject, status) is given.",
    },
    maxResults: {
      type: "number",
      minimum: 1,
      maximum: MAX_RESULTS_LIMIT,
      description: `Most results to return (default ${DEFAULT_MAX_RESULTS}).`,
    },
    minScore: {
      type: "number",
      minimum: 0,
      description: "Drop ranked results scoring below this. Filter-only results have no score "
        + "and are kept.",
    },
    type: {
      type: "string",
      enum: ENTRY_TYPES,
      description: "Only log entries of this type.",
    },
    subject: {
      type: "string",
      description: "Only log entries about this subject slug (kebab-case, e.g. auth-migration).",
    },
    status: {
      type: "string",
      enum: ["open", "done"],
      description: "Only tasks with this status.",
    },
    includeReplaced: {
      type: "boolean",
      description: "Also return entries a later entry replaced (marked with replacedBy). "
        + "Default false: only current entries.",
    },
  },
};

export const GET_PARAMETERS = {
  type: "object",
  additionalProperties: false,
  required: ["path"],
  properties: {
    path: {
      type: "string",
      description: "A log entry id (12 characters, e.g. r7Wp3nKx_mZe), session:<sessionId> "
        + "for a whole session's conversations, or a memory file: MEMORY.md, memory/<file>.md.",
    },
    transcript: {
      type: "boolean",
      description: "With an entry id as path: read the conversation that entry came from "
        + "(only that one, not the whole session). Default false: the entry itself.",
    },
    from: {
      type: "number",
      minimum: 1,
      description: "For a file or a conversation: first line to read (1-based). A conversation "
        + "is read 200 lines (or about 16 KB) at a time; the result's `next` is the from of the "
        + "following page (null at the end).",
    },
    lines: {
      type: "number",
      minimum: 1,
      description: "For a file or a conversation: how many lines to read.",
    },
  },
};

const SEARCH_DESCRIPTION = [
  "Search your memory: the structured log of past sessions and conversations (decisions,",
  "facts, tasks, questions, handoffs) and MEMORY.md / memory/*.md notes. Use it to recall what",
  "the user said or decided, their preferences, what they asked you to remember in earlier",
  "sessions, and to list open tasks or past decisions about a project or person. Already in your context, no search needed:",
  "MEMORY.md, the last session's handoff and, in the same <zettelclaw-memory> block, a few",
  "entries recalled for the current message; search for anything beyond them. Give a query",
  "(keywords or a question) for ranked search, or filter by type, subject and status (all open",
  "tasks: status=open; decisions about a subject: type=decision, subject=<slug>). Returns",
  "current entries with id, type, subject, timestamp and session; corrected (replaced) entries",
  "are hidden unless includeReplaced is true.",
].join(" ");

export const MAX_FORGET_IDS = 50;

/** The schema of a tool's `ids`: 1 to MAX_FORGET_IDS entry ids, described as ``description``. */
function idsParameter(description) {
  return {
    type: "array",
    minItems: 1,
    maxItems: MAX_FORGET_IDS,
    items: { type: "string", pattern: "^[A-Za-z0-9_-]{12}$" },
    description,
  };
}

export const FORGET_PARAMETERS = {
  type: "object",
  additionalProperties: false,
  required: ["ids"],
  properties: {
    ids: idsParameter("Ids of the log entries to forget (12 characters each), as memory_search "
      + "or memory_get returned them."),
  },
};

const FORGET_DESCRIPTION = [
  "Forget entries of your memory log (delete / erase / remove what you remember), by id:",
  "every search, recall, handoff and briefing stops showing them. Only when the user asked you",
  "to forget something, and only after you showed them the entries (memory_search) and they",
  "confirmed. The user can undo it at a terminal (`zettelclaw forget --undo ID`).",
].join(" ");

export const CLOSE_ACTIONS = ["close", "drop", "reopen", "confirm"];

export const CLOSE_PARAMETERS = {
  type: "object",
  additionalProperties: false,
  required: ["ids"],
  properties: {
    ids: idsParameter("Ids of open tasks or questions (for reopen: of the closes this tool "
      + "returned), as memory_search returned them."),
    action: {
      type: "string",
      enum: CLOSE_ACTIONS,
      description: "close: done / answered (default); drop: no longer wanted, not done; "
        + "reopen: undo an earlier close or drop; confirm: make an untrusted entry (origin "
        + "untrusted: another person's words, a web page's claim) the owner's own, only when "
        + "the owner says so.",
    },
    answer: {
      type: "string",
      minLength: 1,
      description: "With close and exactly one question: its answer, stored as the fact "
        + "that replaces it.",
    },
  },
};

const CLOSE_DESCRIPTION = [
  "Close open tasks and questions in your memory log (mark done, answered, dropped, clear old",
  "to-dos), by id: each becomes a correction (a task done, a question a fact that settles it),",
  "so the briefing's Pending and Open Questions stop listing it. Only when the user says so,",
  "after you showed them the loops (memory_search type=task status=open, or type=question) and",
  "they confirmed. action reopen undoes a close. action confirm makes untrusted entries the",
  "owner's memory (the owner's own session only; memory_forget drops them).",
].join(" ");

const GET_DESCRIPTION = [
  "Read one thing from memory: a log entry by its id (with replacedBy when it was corrected),",
  "the conversation an entry came from (path: the entry id, transcript: true), every",
  "conversation of a session (path session:<sessionId>, from an entry's session field), or",
  "lines of MEMORY.md / memory/*.md. Conversations and files come a page at a time (from,",
  "lines; `next` says where the next page starts). Use after memory_search.",
].join(" ");

function integer(value, min, max) {
  if (typeof value !== "number" || !Number.isFinite(value)) return undefined;
  return Math.min(max, Math.max(min, Math.floor(value)));
}

function text(value) {
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}

export const MAX_QUERY_CHARS = 1000; // zettelclaw.rank.MAX_QUERY_CHARS

/** Whether a tool's session is the owner's (scope.js personOfKey, with OpenClaw's config). */
function ownersSession(ctx) {
  return personOfKey(ctx.sessionKey, ctx.config) === OWNER;
}

/**
 * Who calls a tool, as zettelclaw's options: the session's key (that person's memory alone)
 * and what OpenClaw said of the turn's sender. 2026.9 gives every tool context
 * `senderIsOwner`, true only for the owner (anything else is not the owner, as OpenClaw
 * treats it); 2026.2 has no such field, and the session decides. A call without a session key
 * is nobody's: it sees and changes nothing.
 */
export function callerArgs(ctx = {}) {
  const key = typeof ctx?.sessionKey === "string" && ctx.sessionKey.trim()
    ? ctx.sessionKey.trim() : undefined;
  if (!key) return ["--sender-not-owner"];
  const args = ["--session-key", key];
  if (Object.hasOwn(ctx, "senderIsOwner")) {
    args.push(ctx.senderIsOwner === true ? "--sender-is-owner" : "--sender-not-owner");
  }
  return args;
}

/** `who` as argv: callerArgs' list, or (older callers) a bare session key. */
function whoArgs(who) {
  if (Array.isArray(who)) return who;
  return typeof who === "string" && who ? ["--session-key", who] : [];
}

/** The argv of `zettelclaw search` for the tool's parameters (`agent`: see agentArg; `who`:
 * callerArgs). */
export function searchArgs(params = {}, agent, who, turn) {
  const args = ["search", "--json"];
  if (agent) args.push("--agent", agent);
  args.push(...whoArgs(who)); // that person's memory alone
  const type = text(params.type);
  const subject = text(params.subject);
  const status = text(params.status);
  if (type) args.push("--type", type.toLowerCase());
  if (subject) args.push("--subject", subject);
  if (status) args.push("--status", status.toLowerCase());
  if (params.includeReplaced === true) args.push("--all");
  args.push(...receiptArgs(turn)); // zettelclaw receipts its answer (receipts.js)
  const limit = integer(params.maxResults, 1, MAX_RESULTS_LIMIT) ?? DEFAULT_MAX_RESULTS;
  args.push("--limit", String(limit));
  const query = text(params.query);
  if (query && query.length > MAX_QUERY_CHARS) {
    // zettelclaw refuses it too; a megabyte would not even fit in argv (E2BIG)
    throw new Error(`memory_search: the query is ${query.length} characters: at most `
      + `${MAX_QUERY_CHARS} (ask with the words that matter)`);
  }
  if (query) args.push("--", query);
  return args;
}

/** The argv of `zettelclaw get` for the tool's parameters (`agent`: see agentArg). */
export function getArgs(params = {}, agent, who, turn) {
  const target = text(params.path);
  if (!target) throw new Error("memory_get needs a path: an entry id, session:<id> or MEMORY.md");
  const args = ["get", "--json"];
  if (agent) args.push("--agent", agent);
  args.push(...whoArgs(who)); // that person's memory alone
  if (params.transcript === true) args.push("--transcript");
  args.push(...receiptArgs(turn)); // zettelclaw receipts its answer (receipts.js)
  const from = integer(params.from, 1, Number.MAX_SAFE_INTEGER);
  const lines = integer(params.lines, 1, Number.MAX_SAFE_INTEGER);
  if (from !== undefined) args.push("--from", String(from));
  if (lines !== undefined) args.push("--lines", String(lines));
  args.push("--", target);
  return args;
}

/** The entry ids a tool was given, checked before anything runs: 1 to MAX_FORGET_IDS ids of
 * 12 characters. */
function entryIds(params, tool, what) {
  const ids = Array.isArray(params.ids) ? params.ids.map(text).filter(Boolean) : [];
  if (!ids.length) throw new Error(`${tool} needs ids: ${what}`);
  if (ids.length > MAX_FORGET_IDS) {
    throw new Error(`${tool}: ${ids.length} ids: at most ${MAX_FORGET_IDS} at a time`);
  }
  const bad = ids.find((id) => !/^[A-Za-z0-9_-]{12}$/.test(id));
  if (bad) throw new Error(`${tool}: ${JSON.stringify(bad)} is not an entry id (12 characters)`);
  return ids;
}

/** The argv of `zettelclaw forget` for the tool's parameters: this agent's own memory only
 * (`agent`: its id, never the agents shared with it), the caller's own entries only (`who`:
 * callerArgs; another person's id is not found), without a question (`--yes`). */
export function forgetArgs(params = {}, agent, who) {
  const ids = entryIds(params, "memory_forget", "the entries to forget");
  const args = ["forget", "--json", "--yes"];
  if (agent) args.push("--agent", agent);
  args.push(...whoArgs(who));
  args.push("--", ...ids);
  return args;
}

/** The argv of `zettelclaw review close|drop|undo|confirm` for the tool's parameters: this
 * agent's own memory only, the caller's own loops only (`who`: callerArgs; confirm is the
 * owner's alone), without a question (`--yes`). */
export function closeArgs(params = {}, agent, who) {
  const ids = entryIds(params, "memory_close", "the tasks or questions to close");
  const action = text(params.action) || "close";
  if (!CLOSE_ACTIONS.includes(action)) {
    throw new Error(`memory_close: action ${JSON.stringify(action)}: use ${CLOSE_ACTIONS.join(", ")}`);
  }
  const args = ["review"];
  if (agent) args.push("--agent", agent);
  args.push(action === "reopen" ? "undo" : action, "--json", "--yes");
  // a person closes only their own loops; only the owner confirms
  args.push(...whoArgs(who));
  const answer = text(params.answer);
  if (answer) {
    if (action !== "close") throw new Error("memory_close: an answer goes with action close");
    args.push("--answer", answer);
  }
  args.push("--", ...ids);
  return args;
}

/** JSON Lines (or one JSON document) into a list of values. */
export function parseJsonLines(stdout) {
  const trimmed = (stdout || "").trim();
  if (!trimmed) return [];
  try {
    const whole = JSON.parse(trimmed);
    return Array.isArray(whole) ? whole : [whole];
  } catch {
    // one document per line
  }
  const out = [];
  for (const line of trimmed.split("\n")) {
    if (!line.trim()) continue;
    out.push(JSON.parse(line));
  }
  return out;
}

function isMemoryChunk(result) {
  return result && typeof result === "object" && typeof result.path === "string" && !result.id;
}

function overlaps(a, b) {
  if (a.path !== b.path) return false;
  const [a1, a2] = [a.startLine ?? 0, a.endLine ?? a.startLine ?? 0];
  const [b1, b2] = [b.startLine ?? 0, b.endLine ?? b.startLine ?? 0];
  return a1 <= b2 && b1 <= a2;
}

/** Alternate two ranked lists (their scores are on different scales), cut at `limit`. */
function interleave(first, second, limit) {
  const out = [];
  for (let i = 0; out.length < limit && (i < first.length || i < second.length); i += 1) {
    if (i < first.length) out.push(first[i]);
    if (out.length < limit && i < second.length) out.push(second[i]);
  }
  return out;
}

function toolResult(details) {
  return { content: [{ type: "text", text: JSON.stringify(details, null, 2) }], details };
}

function envFor(settings, ctx) {
  if (!ctx?.workspaceDir) return settings.env;
  return { ...settings.env, OPENCLAW_WORKSPACE_DIR: ctx.workspaceDir };
}

async function builtinMemoryResults(builtin, toolCallId, params, signal, logger, workspaceDir) {
  if (!builtin || !text(params.query)) return [];
  try {
    const result = await builtin.execute(toolCallId, {
      query: params.query,
      ...(params.maxResults !== undefined ? { maxResults: params.maxResults } : {}),
      ...(params.minScore !== undefined ? { minScore: params.minScore } : {}),
    }, signal);
    const details = result?.details;
    if (!details || details.disabled || !Array.isArray(details.results)) return [];
    // not MEMORY.md's generated block: it repeats the log, whose entries come from zettelclaw
    return withoutGenerated(details.results.filter(isMemoryChunk), workspaceDir)
      .map((r) => ({ source: "memory", ...r }));
  } catch (err) {
    logger?.warn?.(`zettelclaw: OpenClaw's builtin memory search failed: ${err.message}`);
    return [];
  }
}

/**
 * The two tools for one agent context. `builtins` are OpenClaw 2026.2's own memory tools
 * (or null): their MEMORY.md results are merged in, their reads are the fallback for files.
 */
export function createTools(getSettings, ctx = {}, { builtins = {}, logger, turns } = {}) {
  // the turn a tool call answers: the one before_prompt_build last named for this session
  // (else the call itself), for the receipt of what the tool put before the model
  const turnOf = (toolCallId) => {
    const key = typeof ctx.sessionKey === "string" ? ctx.sessionKey : undefined;
    const id = (key && turns?.get(key)) || (typeof toolCallId === "string" ? toolCallId : undefined);
    return id ? { id, session: ctx.sessionId, call: toolCallId } : undefined;
  };

  const memorySearch = {
    name: "memory_search",
    label: "Memory Search",
    // 2026.9 defers plugin tools behind Tool Search unless they are direct-only; recall is the
    // step the system prompt tells the model to take first, so it stays in the tool list
    catalogMode: "direct-only",
    description: SEARCH_DESCRIPTION,
    parameters: SEARCH_PARAMETERS,
    async execute(toolCallId, params = {}, signal) {
      const settings = getSettings();
      const args = searchArgs(params, agentArg(settings.config, agentIdFor(ctx, ctx.sessionKey)),
        callerArgs(ctx), turnOf(toolCallId));
      const filtered = Boolean(text(params.type) || text(params.subject) || text(params.status));
      const [result, builtinResults] = await Promise.all([
        runCommand(settings, args, { timeoutMs: TOOL_TIMEOUT_MS, env: envFor(settings, ctx), signal }),
        // OpenClaw's own MEMORY.md search is the owner's alone
        filtered || !ownersSession(ctx) ? [] : builtinMemoryResults(builtins.search, toolCallId, params, signal, logger,
          ctx.workspaceDir),
      ]);
      if (result.code !== 0) throw new Error(failureMessage(result, "zettelclaw search"));
      let results = parseJsonLines(result.stdout);
      const minScore = typeof params.minScore === "number" ? params.minScore : undefined;
      if (minScore !== undefined) {
        results = results.filter((r) => typeof r.score !== "number" || r.score >= minScore);
      }
      results = results.map((r) => (isMemoryChunk(r) ? r : { source: "log", ...r }));
      const limit = integer(params.maxResults, 1, MAX_RESULTS_LIMIT) ?? DEFAULT_MAX_RESULTS;
      if (builtinResults.length) {
        const entries = results.filter((r) => !isMemoryChunk(r));
        const ownChunks = results.filter((r) => isMemoryChunk(r)
          && !builtinResults.some((b) => overlaps(b, r)));
        results = interleave(entries, [...builtinResults, ...ownChunks], limit);
      }
      const details = { results: results.slice(0, limit), count: Math.min(results.length, limit) };
      if (!details.count) {
        details.note = text(params.query)
          ? "Nothing in memory matches. Try other keywords, fewer filters, or includeReplaced."
          : "No entries match these filters.";
      }
      return toolResult(details);
    },
  };

  const memoryGet = {
    name: "memory_get",
    label: "Memory Get",
    catalogMode: "direct-only",
    description: GET_DESCRIPTION,
    parameters: GET_PARAMETERS,
    async execute(toolCallId, params = {}, signal) {
      const settings = getSettings();
      const args = getArgs(params, agentArg(settings.config, agentIdFor(ctx, ctx.sessionKey)),
        callerArgs(ctx), turnOf(toolCallId));
      const result = await runCommand(settings, args, {
        timeoutMs: TOOL_TIMEOUT_MS, env: envFor(settings, ctx), signal,
      });
      if (result.code === 1) {
        // a forgotten or purged entry: `get --json` prints an object that says so
        const [gone] = (() => {
          try { return parseJsonLines(result.stdout); } catch { return []; }
        })();
        if (gone && (gone.forgotten || gone.purged)) return toolResult(gone);
      }
      if (result.code !== 0) {
        const target = text(params.path);
        const isFile = !target.startsWith("session:") && /[./]/.test(target);
        if (builtins.get && isFile && ownersSession(ctx)) {
          // 2026.2: OpenClaw's own reader knows extra memory paths zettelclaw does not
          const fallback = await builtins.get.execute(toolCallId, params, signal);
          if (fallback?.details && !fallback.details.disabled && !fallback.details.error) {
            return fallback;
          }
        }
        throw new Error(failureMessage(result, "zettelclaw get"));
      }
      const values = parseJsonLines(result.stdout);
      let details;
      if (values.length === 1 && values[0] && !values[0].id) {
        details = values[0]; // a file ({path, text, ...}) or a conversation ({session, text, next, ...})
      } else {
        details = { entries: values };
      }
      return toolResult(details);
    },
  };

  /** `zettelclaw ARGS` (``makeArgs(params, agent)``) in the calling agent's own memory, never
   * a shared agent's: what it printed (JSON Lines), or its error thrown. */
  async function inOwnMemory(makeArgs, params, signal, command) {
    const settings = getSettings();
    const args = makeArgs(params, agentArg({}, agentIdFor(ctx, ctx.sessionKey)), callerArgs(ctx));
    const result = await runCommand(settings, args, {
      timeoutMs: TOOL_TIMEOUT_MS, env: envFor(settings, ctx), signal,
    });
    if (result.code !== 0) throw new Error(failureMessage(result, command));
    return { values: parseJsonLines(result.stdout), stderr: result.stderr };
  }

  const memoryForget = {
    name: "memory_forget",
    label: "Memory Forget",
    description: FORGET_DESCRIPTION,
    parameters: FORGET_PARAMETERS,
    async execute(toolCallId, params = {}, signal) {
      const { values: forgotten } = await inOwnMemory(forgetArgs, params, signal,
        "zettelclaw forget");
      const details = {
        forgotten: forgotten.map((e) => ({ id: e.id, type: e.type, content: e.content })),
        count: forgotten.length,
      };
      if (!forgotten.length) details.note = "Nothing was forgotten: these entries were already forgotten.";
      return toolResult(details);
    },
  };

  const memoryClose = {
    name: "memory_close",
    label: "Memory Close",
    description: CLOSE_DESCRIPTION,
    parameters: CLOSE_PARAMETERS,
    async execute(toolCallId, params = {}, signal) {
      const { values: written, stderr } = await inOwnMemory(closeArgs, params, signal,
        "zettelclaw review");
      const details = {
        written: written.map((e) => ({
          id: e.id, type: e.type, content: e.content, status: e.status, replaces: e.replaces,
        })),
        count: written.length,
      };
      if (!written.length) {
        details.note = "Nothing was written: " + ((text(stderr) || "").split("\n")[0]
          || "these are not open tasks or questions.");
      }
      return toolResult(details);
    },
  };

  return [memorySearch, memoryGet, memoryForget, memoryClose];
}
