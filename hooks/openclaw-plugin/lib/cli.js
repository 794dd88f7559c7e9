// `openclaw zettelclaw ...`: the design's own spelling (§8.2-8.3) of the zettelclaw commands,
// and `openclaw memory status|search|get|forget` (memory-core's commands) answered over them.
//
// The plugin registers one OpenClaw CLI command, `zettelclaw`, that hands every argument after
// it to the zettelclaw executable (plugin config `command`, else `zettelclaw` on PATH) with the
// same environment the hooks give it (so both find the same log directory), and the terminal's
// own stdin, stdout and stderr: tables on a terminal, JSON Lines when piped, `write fact -`
// reading stdin. OpenClaw exits with the executable's exit code.
//
// 2026.2 calls the registrar synchronously with `{program}` (a Commander program) and ignores
// a returned promise; 2026.9 awaits it and wants the command root in the manifest too
// (`cliCommands` in openclaw.plugin.json) and in `descriptors`. Both get the same registrar.

import { spawn } from "node:child_process";
import fs from "node:fs";

export const CLI_COMMAND = "zettelclaw";
export const CLI_DESCRIPTION = "zettelclaw, the memory: init, subjects, search, log, get, doctor...";
// `openclaw memory ...` is memory-core's CLI; with zettelclaw in the memory slot (init turns
// memory-core off) the habits it taught are answered over zettelclaw
export const MEMORY_COMMAND = "memory";
export const MEMORY_DESCRIPTION = "Memory (zettelclaw): status, search, get, forget";

/**
 * The arguments meant for zettelclaw: everything after the `zettelclaw` command word in `argv`
 * (process.argv: node, the openclaw script, OpenClaw's own global options, `zettelclaw`, ...).
 * Taken from argv rather than from Commander's parse, which drops a `--` separator and reorders
 * operands around unknown options; null when the word is not there.
 */
export function passThroughArgs(argv, word = CLI_COMMAND) {
  const at = argv.indexOf(word, 2);
  return at < 0 ? null : argv.slice(at + 1);
}

// memory-core's options that mean nothing for an append-only log (no index, no embeddings)
const IGNORED = new Set(["--deep", "--index", "--fix", "--verbose"]);
const WITH_VALUE = new Set(["--agent", "--query", "--max-results", "--min-score", "--session",
  "--since", "--until", "--hook-source", "--participant", "--type", "--subject", "--status",
  "--limit"]);

/**
 * memory-core's `openclaw memory <sub> ...` as zettelclaw arguments:
 * `{args}` to run, `{say}` to print (exit 0), or `{error}` (exit 1, memory-core's code for bad
 * input). status -> `stats`; search [query] [--query Q] [--max-results N] [--min-score S] ->
 * `search Q --limit N`; get -> `get`; forget (memory-core deletes without asking) ->
 * `forget --yes`; index -> nothing to do. `--agent`, `--session` and `--json` keep their
 * meaning; exit codes are memory-core's: 0, and 1 for a failure or bad input.
 */
export function memoryArgs(args) {
  const [sub, ...rest] = args;
  const options = [];
  const operands = [];
  let query;
  for (let i = 0; i < rest.length; i++) {
    let [name, value] = rest[i].startsWith("--") ? rest[i].split(/=(.*)/s, 2) : [rest[i]];
    if (WITH_VALUE.has(name) && value === undefined) value = rest[++i];
    if (IGNORED.has(name)) continue;
    if (name === "--query") query = value;
    else if (name === "--max-results") options.push("--limit", value);
    else if (name === "--min-score") continue;  // BM25 scores are not memory-core's
    else if (name === "--agent") options.push("--agent", value);
    else if (value !== undefined) options.push(name, value);
    else if (name === "--") operands.push(...rest.slice(i + 1)), (i = rest.length);
    else if (name.startsWith("-")) options.push(name);
    else operands.push(name);
  }
  switch (sub) {
    case "status":
      return { args: ["stats", ...options] };
    case "search": {
      const text = query ?? operands.join(" ");
      if (!text.trim()) return { error: "memory search needs a query: openclaw memory search <query>" };
      return { args: ["search", ...options, "--", text] };
    }
    case "get":
      return { args: ["get", ...options, "--", ...operands] };
    case "forget": {
      const yes = options.includes("--dry-run") ? [] : ["--yes"];
      return { args: ["forget", ...yes, ...options, "--", ...operands] };
    }
    case "index":
      return { say: "zettelclaw keeps no index: the log is searched as it is, nothing to index." };
    default:
      return { error: `openclaw memory ${sub ?? ""}`.trim() + " is not something zettelclaw "
        + "answers: openclaw memory status|search|get|forget, or openclaw zettelclaw --help" };
  }
}

/**
 * Run the executable with `args`, the terminal's stdio inherited. Resolves its exit code
 * (128 + signal number when a signal ended it; 127 when it could not be started, with one
 * `Error:` line on stderr naming the command).
 */
export function runPassThrough(settings, args, { stdio = "inherit" } = {}) {
  // the child's stderr: the terminal's, or the descriptor a test gave
  const stderr = Array.isArray(stdio) && typeof stdio[2] === "number"
    ? { write: (text) => fs.writeSync(stdio[2], text) }
    : process.stderr;
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(settings.command, args, { stdio, env: settings.env, windowsHide: true });
    } catch (err) {
      stderr.write(`Error: cannot run ${settings.command}: ${err.message}\n`);
      resolve(127);
      return;
    }
    child.on("error", (err) => {
      stderr.write(`Error: cannot run ${settings.command}: ${err.message} `
        + "(set plugins.entries.zettelclaw.config.command to the zettelclaw executable)\n");
      resolve(127);
    });
    child.on("close", (code, signal) => {
      if (code !== null) resolve(code);
      else resolve(128 + (signalNumber(signal) ?? 1));
    });
  });
}

const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGPIPE: 13, SIGTERM: 15 };
function signalNumber(signal) {
  return SIGNALS[signal];
}

/**
 * Register the `zettelclaw` CLI command on `api` (when the OpenClaw has `registerCli`).
 * `options.argv` and `options.exit` exist for tests (default process.argv and process.exit).
 */
export function registerCli(api, getSettings, options = {}) {
  if (typeof api.registerCli !== "function") return;
  const exit = (code) => (options.exit ?? process.exit)(code);
  const root = (program, word, description, run) => program
    .command(word)
    .description(description)
    // every option and argument is zettelclaw's, --help and --version included
    .helpOption(false)
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .argument("[args...]", "the command and its arguments")
    .action(async (parsed) => {
      const argv = options.argv ?? process.argv;
      // OpenClaw would otherwise go on (and 2026.2 exits 0 whatever the action set)
      exit(await run(passThroughArgs(argv, word) ?? parsed ?? []));
    });
  // one registration per root: OpenClaw skips a registration whose roots it already has, and
  // 2026.2 has `memory` as a core command of its own (memory-core's root on 2026.9)
  for (const [word, description, run] of [
    [CLI_COMMAND, CLI_DESCRIPTION, (args) => runPassThrough(getSettings(), args, options)],
    [MEMORY_COMMAND, MEMORY_DESCRIPTION, (args) => runMemory(getSettings(), args, options)],
  ]) {
    api.registerCli(({ program }) => { root(program, word, description, run); }, {
      commands: [word],
      descriptors: [{ name: word, description, hasSubcommands: false }],
    });
  }
}

/** `openclaw memory ...` answered by zettelclaw (see memoryArgs); resolves the exit code. */
async function runMemory(settings, args, options) {
  const out = (fd, fallback) => (Array.isArray(options.stdio) && typeof options.stdio[fd] === "number"
    ? (text) => fs.writeSync(options.stdio[fd], text) : (text) => fallback.write(text));
  const plan = memoryArgs(args);
  if (plan.error) {
    out(2, process.stderr)(`Error: ${plan.error}\n`);
    return 1;
  }
  if (plan.say) {
    out(1, process.stdout)(`${plan.say}\n`);
    return 0;
  }
  const code = await runPassThrough(settings, plan.args, options);
  return code === 2 ? 1 : code;  // memory-core exits 1 for bad input too (zettelclaw: 2)
}
