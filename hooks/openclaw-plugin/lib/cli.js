// `openclaw zettelclaw ...`: the design's own spelling (§8.2-8.3) of the zettelclaw commands.
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

/**
 * The arguments meant for zettelclaw: everything after the `zettelclaw` command word in `argv`
 * (process.argv: node, the openclaw script, OpenClaw's own global options, `zettelclaw`, ...).
 * Taken from argv rather than from Commander's parse, which drops a `--` separator and reorders
 * operands around unknown options; null when the word is not there.
 */
export function passThroughArgs(argv) {
  const at = argv.indexOf(CLI_COMMAND, 2);
  return at < 0 ? null : argv.slice(at + 1);
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
  const registrar = ({ program }) => {
    program
      .command(CLI_COMMAND)
      .description(CLI_DESCRIPTION)
      // every option and argument is zettelclaw's, --help and --version included
      .helpOption(false)
      .allowUnknownOption(true)
      .allowExcessArguments(true)
      .argument("[args...]", "zettelclaw's command and its arguments")
      .action(async (parsed) => {
        const argv = options.argv ?? process.argv;
        const args = passThroughArgs(argv) ?? parsed ?? [];
        const code = await runPassThrough(getSettings(), args, options);
        // OpenClaw would otherwise go on (and 2026.2 exits 0 whatever the action set)
        (options.exit ?? process.exit)(code);
      });
  };
  api.registerCli(registrar, {
    commands: [CLI_COMMAND],
    descriptors: [{ name: CLI_COMMAND, description: CLI_DESCRIPTION, hasSubcommands: false }],
  });
}
