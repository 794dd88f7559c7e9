"""``zettelclaw get``: an entry by id, a session's conversation, or a memory file."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._options import (
    AgentOption,
    SenderOption,
    SessionIdOption,
    SessionKeyOption,
    ToolCallOption,
    TurnOption,
    turn_of,
)


def register(app: typer.Typer) -> None:
    @app.command()
    def get(
        target: Annotated[str, typer.Argument(
            metavar="ID|session:ID|PATH",
            help="An entry id, session:<sessionId>, MEMORY.md or memory/<file>.md.")],
        history: Annotated[bool, typer.Option(
            "--history", help="For an entry: its whole replacement chain.")] = False,
        transcript: Annotated[bool, typer.Option(
            "--transcript", help="For an entry: the conversation it came from.")] = False,
        from_: Annotated[Optional[int], typer.Option(
            "--from", help="For a file or a conversation: first line (1-based).")] = None,
        lines: Annotated[Optional[int], typer.Option(
            "--lines", help="For a file or a conversation: number of lines (a conversation: "
                            "200 lines or about 16 KB at a time by default).")] = None,
        agent: AgentOption = None,
        session_key: SessionKeyOption = None,
        sender_is_owner: SenderOption = None,
        as_json: Annotated[bool, typer.Option(
            "--json", help="Print JSON: an entry (and --history) is JSON Lines when piped anyway; "
                           "a conversation or a file is its text, piped or not, unless "
                           "--json.")] = False,
        turn: TurnOption = None,
        session_id: SessionIdOption = None,
        tool_call: ToolCallOption = None,
    ) -> None:
        """Read one thing from memory: an entry, a conversation or MEMORY.md.

        `get ID --transcript` shows the conversation the entry came from; `get session:ID`
        every conversation of that session. Both come a page at a time (`--from`, `--lines`).

        An entry is data: JSON Lines when piped. A conversation or MEMORY.md is text, piped or
        not (`zettelclaw get MEMORY.md | grep Pending`); --json gives it as one JSON object
        with the page's `text`, `from`, `lines`, `totalLines` and `next`.
        """
        from .. import lookup
        from ..errors import GoneError
        from ..render import emit_json, emit_json_lines, want_json

        try:
            kind, result = lookup.get(target, history=history, start=from_, count=lines,
                                      agent=agent, transcript=transcript,
                                      session_key=session_key,
                                      sender_is_owner=sender_is_owner)
        except GoneError as gone:
            if want_json(as_json):  # the agent's memory_get: an object that says so
                emit_json(gone.as_json())
            raise
        if kind == "entries":  # data: JSON Lines when piped
            if want_json(as_json):
                emit_json_lines(result)
            else:
                for entry in result:
                    typer.echo(lookup.format_entry(entry))
        elif as_json:  # transcripts and files read as text unless asked for JSON
            emit_json(result)
        elif kind == "session":
            typer.echo(lookup.format_session(result))
        else:
            from ..display import printable

            typer.echo(printable(result["text"]))
        receipt = turn_of(turn, session_id, tool_call)
        if receipt is not None:  # the plugin's memory_get answer
            from ..receipts import GET, answer_items, record

            items = answer_items(result, GET) if kind == "entries" else [
                {"file": target, "why": GET, "from": from_ or 1}]
            record(receipt, GET, items, agents=agent, session_key=session_key)
