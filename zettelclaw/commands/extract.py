"""``zettelclaw extract``: one session's conversation(s) into log entries (design §4)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ._options import JsonOption


def _read_messages(source: str) -> bytes:
    import sys

    from ..errors import UsageError

    if source == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(source).expanduser().read_bytes()
    except OSError as exc:
        raise UsageError(f"--messages {source}: {exc.strerror}") from None


def register(app: typer.Typer) -> None:
    @app.command()
    def extract(
        session_id: Annotated[Optional[str], typer.Option(
            "--session-id", help="OpenClaw sessionId.", show_default=False)] = None,
        agent: Annotated[Optional[str], typer.Option(
            "--agent", help="OpenClaw agent id (default: whichever agent has the session).",
            show_default=False)] = None,
        session_key: Annotated[Optional[str], typer.Option(
            "--session-key", help="Session key, to skip cron/subagent/hook sessions without "
                                  "looking it up.", show_default=False)] = None,
        session_file: Annotated[Optional[str], typer.Option(
            "--session-file", help="The hook's sessionFile (a transcript path, possibly "
                                   "rotated, or 2026.9's sqlite: pseudo-id).",
            show_default=False)] = None,
        messages: Annotated[Optional[str], typer.Option(
            "--messages", metavar="-|FILE",
            help="Inline messages (before_reset's messages[]): a JSON array or JSON Lines, "
                 "'-' for stdin.", show_default=False)] = None,
        reason: Annotated[Optional[str], typer.Option(
            "--reason", help="Why (before_reset, session_end, ...); kept in state.json.",
            show_default=False)] = None,
        dry_run: Annotated[bool, typer.Option(
            "--dry-run", help="Call the model and print the entries; store nothing.")] = False,
        as_json: JsonOption = False,
    ) -> None:
        """Extract a session's conversation into the log; a second run finds nothing new.

        Prints the entries appended (JSON Lines when piped) and one status line on stderr.
        """
        from .. import transcripts
        from ..errors import UsageError
        from ..extract import Extractor
        from ..render import emit_entries

        ref = None
        if session_file and not messages:
            ref = transcripts.find_session_file(session_file, agent)
            if session_id and session_id != ref.session_id:
                raise UsageError(f"--session-file belongs to session {ref.session_id}, "
                                 f"not {session_id}")
            session_id = ref.session_id
        if not session_id:
            raise UsageError("give --session-id (or --session-file)")
        data = _read_messages(messages) if messages is not None else None
        result = Extractor().extract_session(
            session_id, agent=agent, session_key=session_key, messages=data, reason=reason,
            dry_run=dry_run, ref=ref)
        for warning in dict.fromkeys(result.warnings):
            typer.echo(f"warning: {warning}", err=True)
        if result.entries:
            emit_entries(result.entries, as_json)
        typer.echo(result.message, err=True)
        if result.status == "failed":
            raise typer.Exit(1)
