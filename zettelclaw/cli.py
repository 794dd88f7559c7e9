"""The command line: a thin Typer layer over the core modules.

Each subcommand lives in ``zettelclaw/commands/<name>.py`` and exposes ``register(app)``.
Core code raises :mod:`zettelclaw.errors`; this module turns them into ``Error: ...`` on stderr
and the documented exit code (0 ok, 1 failure, 2 usage or bad input).
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from typer.core import TyperGroup

from . import __version__
from .errors import BadValue, ZettelclawError, error_line, os_error


class _Group(TyperGroup):
    """Turns domain errors raised anywhere below into one line and an exit code, and usage
    errors (an unknown option, a missing argument, a bad value) into one ``Error:`` line and
    a ``Try '... --help'.`` line, exit 2, instead of Typer's boxed usage panel."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True,
             **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        from typer import Abort
        from typer._click.exceptions import ClickException, NoArgsIsHelpError

        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except NoArgsIsHelpError as exc:  # `zettelclaw` alone: the help, as before
            exc.show()
            sys.exit(exc.exit_code)
        except ClickException as exc:
            _usage_error(exc, self._command_path(sys.argv[1:] if args is None else args))
        except Abort:  # Ctrl-C or Ctrl-D at a question
            typer.echo("Aborted.", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) and not isinstance(code, bool) else 0)

    def _command_path(self, args) -> str:
        """``zettelclaw`` and the (sub)command names ``args`` call, for an error Click raised
        without its context (an option missing its value)."""
        path, command, words = ["zettelclaw"], self, list(args)
        while words and hasattr(command, "commands"):
            word = words.pop(0)
            if word in ("--home", "--workspace"):
                words[:1] = []
            elif not word.startswith("-"):
                command = command.commands.get(word)
                if command is None:
                    break
                path.append(word)
        return " ".join(path)

    def resolve_command(self, ctx, args):
        """A word that is no command: "Did you mean 'search'?" with the closest name, and the
        others only when they are as close (``serach``: search alone, not extract too)."""
        from typer._click.exceptions import UsageError

        try:
            return self._click_resolve_command(ctx, args)
        except UsageError as exc:
            if args and self.commands:
                close = closest(args[0], list(self.commands))
                if close:
                    names = " or ".join(repr(name) for name in close)
                    exc.message = f"{exc.message.rstrip('.')}. Did you mean {names}?"
            raise

    def invoke(self, ctx):
        called = [*ctx._protected_args, *ctx.args]  # (the group empties them as it goes)
        try:
            return super().invoke(ctx)
        except ZettelclawError as exc:
            # a bad value in the shape of Click's: the Try line too
            _fail(exc, self._command_path(called) if isinstance(exc, BadValue) else None)
        except BrokenPipeError:  # `zettelclaw search | head`
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            raise typer.Exit(0) from None
        except OSError as exc:  # a read-only or full disk, a permission: the file and why
            _fail(os_error(exc))


def closest(word: str, names: list[str], *, margin: float = 0.1) -> list[str]:
    """The names close to ``word`` (difflib's ratio at least 0.6), the closest first, keeping
    only those within ``margin`` of the closest: one suggestion when one is clearly closer."""
    from difflib import SequenceMatcher

    scored = sorted(((SequenceMatcher(None, word, name).ratio(), name) for name in names),
                    key=lambda pair: (-pair[0], pair[1]))
    scored = [(ratio, name) for ratio, name in scored if ratio >= 0.6]
    return [name for ratio, name in scored if ratio >= scored[0][0] - margin] if scored else []


def _fail(exc: ZettelclawError, command_path: str | None = None):
    from .redact import redact

    # background runs' stderr lands in hooks.log, next to the log: no secret in it
    message = error_line(redact(str(exc))) or type(exc).__name__
    typer.echo(f"Error: {message}", err=True)
    if command_path:
        typer.echo(f"Try '{command_path} --help'.", err=True)
    raise typer.Exit(exc.exit_code) from None


def _usage_error(exc, command_path: str) -> None:
    """Click's usage error as one ``Error:`` line (redacted: it may quote an argument) and one
    line naming the command's help; exit 2 (Click's code)."""
    from .redact import redact

    message = error_line(redact(exc.format_message())) or type(exc).__name__
    typer.echo(f"Error: {message}", err=True)
    ctx = getattr(exc, "ctx", None)
    if ctx is not None:
        command_path = ctx.command_path
    typer.echo(f"Try '{command_path} --help'.", err=True)
    sys.exit(exc.exit_code)


def _new_app() -> typer.Typer:
    out = typer.Typer(
        cls=_Group,
        name="zettelclaw",
        help="The memory of an OpenClaw agent: an append-only event log, a nightly briefing, "
             "search.",
        no_args_is_help=True,
        add_completion=True,  # --install-completion / --show-completion (bash, zsh, fish, pwsh)
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    out.callback()(root)
    return out


def _version(value: bool) -> None:
    if value:
        typer.echo(f"zettelclaw {__version__}")
        raise typer.Exit()


def root(
    home: Annotated[Optional[Path], typer.Option(
        "--home", help="Log directory (log.jsonl, subjects.json, state.json). "
                       "Default: $ZETTELCLAW_HOME, the plugin's logDir, ~/.openclaw/zettelclaw.",
        show_default=False)] = None,
    workspace: Annotated[Optional[Path], typer.Option(
        "--workspace", help="OpenClaw workspace holding MEMORY.md. "
                            "Default: $OPENCLAW_WORKSPACE_DIR, agents.defaults.workspace, "
                            "~/.openclaw/workspace.", show_default=False)] = None,
    version: Annotated[bool, typer.Option(
        "--version", "-V", callback=_version, is_eager=True,
        help="Show the version and exit.")] = False,
) -> None:
    """zettelclaw: the memory system of an OpenClaw agent."""
    if home is not None:
        os.environ["ZETTELCLAW_HOME"] = str(home.expanduser().absolute())
    if workspace is not None:
        os.environ["OPENCLAW_WORKSPACE_DIR"] = str(workspace.expanduser().absolute())


# the modules of zettelclaw/commands in the order `zettelclaw --help` lists their commands, each
# with the one command it registers
COMMANDS = {"search": "search", "get": "get", "handoff": "handoff", "recall": "recall",
            "why": "why", "log": "log", "write": "write", "forget": "forget", "review": "review",
            "purge": "purge", "subjects": "subjects", "extract": "extract", "sweep": "sweep",
            "history": "import", "stats": "stats", "export": "export", "brief": "brief",
            "init": "init", "doctor": "doctor", "paths": "paths", "vault": "vault"}
_MODULE_OF = {command: module for module, command in COMMANDS.items()}
_ROOT_VALUES = ("--home", "--workspace")  # the root options that take a value


def build(modules=None) -> typer.Typer:
    """The app with the commands of ``modules`` (default: every command)."""
    import importlib

    out = _new_app()
    for module in COMMANDS if modules is None else modules:
        importlib.import_module(f"{__package__}.commands.{module}").register(out)
    _reflow_help(out)
    return out


def app_for(args: list[str]) -> typer.Typer:
    """The app that runs ``args``: when they name a command (after the root options), one
    with that command alone, since Typer reads the signature of every command's function
    each time it builds the group (about 50 ms for all of them, more than the nightly
    ``brief`` or a ``vault build`` itself); for the root's help, a completion, a word that
    is no command or anything unclear, the whole app (:data:`app`)."""
    if os.environ.get("_ZETTELCLAW_COMPLETE"):
        return _full()
    words = iter(args)
    for word in words:
        if word in _ROOT_VALUES:
            next(words, None)
        elif word.startswith(tuple(f"{option}=" for option in _ROOT_VALUES)):
            continue
        elif word in _MODULE_OF:
            return build([_MODULE_OF[word]])
        else:
            break
    return _full()


@functools.cache
def _full() -> typer.Typer:
    return build()


def __getattr__(name: str):
    if name == "app":  # every command, built when first asked for
        return _full()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _reflow(text: str | None) -> str | None:
    """A docstring's paragraphs as single lines: Typer 0.28 prints the line breaks of every
    paragraph after the first as they are, which wraps them mid-sentence on a terminal."""
    if not text:
        return text
    import inspect

    return "\n\n".join(" ".join(paragraph.split("\n"))
                       for paragraph in inspect.cleandoc(text).split("\n\n"))


def _reflow_help(typer_app: typer.Typer) -> None:
    for info in typer_app.registered_commands:
        info.help = _reflow(info.help or (info.callback.__doc__ if info.callback else None))
    for group in typer_app.registered_groups:
        callback = group.typer_instance.registered_callback  # a group's own help (review's)
        if callback is not None and not isinstance(group.typer_instance.info.help, str):
            callback.help = _reflow(callback.help or (callback.callback.__doc__
                                                      if callback.callback else None))
        _reflow_help(group.typer_instance)

