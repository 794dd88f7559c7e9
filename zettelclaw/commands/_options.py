"""Options and small helpers shared by several commands."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Optional

import typer

JsonOption = Annotated[bool, typer.Option(
    "--json", help="Print JSON (JSON Lines for lists); the default when stdout is not a terminal.")]

# --text: a report for a person or a log file (doctor, sweep, import), the handoff block the
# plugin injects, printed as text even when piped
TextOption = Annotated[bool, typer.Option(
    "--text", help="Print text even when piped (the plugin's form, a log file's).")]


AgentOption = Annotated[Optional[list[str]], typer.Option(
    "--agent", metavar="ID[,ID...]|all",
    help="Whose memory: an OpenClaw agent id (default: OpenClaw's default agent), several "
         "(comma-separated or repeated: the first is the caller, the others shared with it), "
         "or all (agent:ID names one agent, even one whose id is all).", show_default=False)]


SessionKeyOption = Annotated[Optional[str], typer.Option(
    "--session-key", metavar="KEY",
    help="The OpenClaw session asking (the plugin's): only its person's memory (the owner's "
         "for the main session, a direct-message peer's own for theirs). Without it: the "
         "terminal, the owner's, which sees every person's entries, marked.",
    show_default=False)]


SenderOption = Annotated[Optional[bool], typer.Option(
    "--sender-is-owner/--sender-not-owner",
    help="What OpenClaw said of the turn's sender (its senderIsOwner; the plugin's). A sender "
         "it says is not the owner is not the owner, even in the main session; a tool's call "
         "without --session-key is nobody's.", show_default=False)]


# the plugin's: the turn (and session, and tool call) whose receipt the command writes
# (zettelclaw.receipts); not for people, so not in --help
TurnOption = Annotated[Optional[str], typer.Option("--turn", hidden=True)]
SessionIdOption = Annotated[Optional[str], typer.Option("--session-id", hidden=True)]
ToolCallOption = Annotated[Optional[str], typer.Option("--tool-call", hidden=True)]


def turn_of(turn: str | None, session_id: str | None = None, tool_call: str | None = None):
    """The :class:`zettelclaw.receipts.Turn` the plugin named, or None."""
    from ..receipts import Turn

    return Turn.of({"turn": turn, "session_id": session_id, "tool_call": tool_call})


def scope(agent: list[str] | None, session_key: str | None = None,
          sender_is_owner: bool | None = None) -> dict:
    """``Query`` keywords for ``--agent``, ``--session-key`` and the sender: the agents in
    scope, the default agent, and the person asking (None: the terminal, every person's
    entries)."""
    from .. import paths
    from ..people import caller

    out = {"agents": paths.agent_scope(agent), "default_agent": paths.default_agent()}
    person = caller(session_key, sender_is_owner)
    if person is not None:
        out["person"] = person
    return out


def nothing_found(message: str) -> str:
    """``message`` for a listing that found nothing, with a hint when the log itself holds
    nothing: a person in a shell without the demo's exports (or the install's home) reads an
    empty home, and should hear where zettelclaw looked."""
    from .. import paths

    log = paths.log_path()
    try:
        empty = log.stat().st_size == 0
    except OSError:
        empty = True
    if not empty:
        return message
    return (f"{message} The log {log} holds nothing yet: `zettelclaw paths` shows where "
            "zettelclaw looks (--home or ZETTELCLAW_HOME names another; `make demo` prints "
            "the export line for its home).")


def parse_window(value: str | None, *, end: bool = False) -> datetime | None:
    from ..query import parse_when

    return parse_when(value, end_of_day=end) if value else None


def _is_text(arg: str) -> bool:
    """An argument that starts with "-" but is no option: "-5 degrees outside", "- item",
    "-> done" (a dash then a digit, a space or a sign), or anything with a space before its
    "=" (no option name holds one). ``-x`` and ``--name[=value]`` stay options."""
    name = arg.partition("=")[0] if arg.startswith("--") else arg
    return any(c.isspace() for c in name) or not (arg[1].isalpha() or arg[1] == "-")


def text_command():
    """The command class for commands whose arguments are free text (``write``, ``search``):
    an argument like "-5 degrees outside" is text, not an unknown option (``--`` still ends
    options)."""
    from typer.core import TyperCommand

    class TextCommand(TyperCommand):
        def make_parser(self, ctx):
            parser = super().make_parser(ctx)
            process = parser._process_opts

            def process_opts(arg, state):
                if _is_text(arg):
                    state.largs.append(arg)
                else:
                    process(arg, state)

            parser._process_opts = process_opts
            return parser

    return TextCommand


def read_stdin_if_dash(value: str, what: str) -> str:
    """``-`` means: read ``what`` from stdin (a hint on stderr when stdin is a terminal)."""
    import sys

    if value != "-":
        return value
    if sys.stdin.isatty():
        typer.echo(f"Reading the {what} from stdin; end it with Ctrl-D.", err=True)
    return sys.stdin.read()


def complete_type(incomplete: str) -> list[str]:
    """Shell completion of an entry type."""
    from ..log import TYPES

    return [t for t in TYPES if t.startswith(incomplete)]


def complete_subject(incomplete: str) -> list[str]:
    """Shell completion of a subject slug: the registry's (nothing if it cannot be read)."""
    from ..errors import ZettelclawError
    from ..subjects import Registry

    try:
        return [slug for slug, _ in Registry.load().items() if slug.startswith(incomplete)]
    except (ZettelclawError, OSError):
        return []
