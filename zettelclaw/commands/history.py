"""``zettelclaw import``: bring in the conversations from before the install (history)."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from ._options import JsonOption, TextOption, parse_window


def register(app: typer.Typer) -> None:
    @app.command("import")
    def import_(
        agent: Annotated[Optional[str], typer.Option(
            "--agent", help="Only this OpenClaw agent.", show_default=False)] = None,
        since: Annotated[Optional[str], typer.Option(
            "--since", metavar="TIME",
            help="Only conversations that ended since: 2026-02-20, an ISO time, 30d / 12h. "
                 "Older history in the sessions imported is left out for good.",
            show_default=False)] = None,
        session: Annotated[Optional[str], typer.Option(
            "--session", metavar="ID", help="Only this OpenClaw sessionId.",
            show_default=False)] = None,
        dry_run: Annotated[bool, typer.Option(
            "--dry-run", help="List the history per session with an estimate of input "
                              "tokens; no model call, no writes.")] = False,
        yes: Annotated[bool, typer.Option(
            "--yes", "-y", help="Do not ask before a large import (needed for one when not "
                                "on a terminal).")] = False,
        concurrency: Annotated[int, typer.Option(
            "--concurrency", "-j", min=1, max=64, help="Sessions extracted at once.")] = 4,
        as_json: JsonOption = False,
        text: TextOption = False,
    ) -> None:
        """Extract the conversations that ended before `zettelclaw init` installed zettelclaw.

        The automatic runs (hooks, gateway start, cron) leave them alone. Each conversation is
        committed as it is done: an interrupted import run again goes on where it stopped and
        takes nothing twice. Entries carry their conversations' own times. Input tokens are an
        estimate: characters / 4 of the extraction prompt and the transcript, per model call.
        """
        from .. import history
        from ..counts import count
        from ..errors import UsageError
        from ..render import emit_json, emit_json_lines, want_json
        from ..state import State

        if State.load().install_moment() is None:
            typer.echo("Nothing to import: state.json has no moment of install (zettelclaw "
                       "init records it on a first install), so `zettelclaw sweep` takes "
                       "every conversation.", err=True)
            return
        as_json = not text and want_json(as_json)
        window = parse_window(since)
        found = history.survey(agent=agent, since=window, session=session)
        if dry_run:
            if as_json:
                emit_json_lines([s.as_dict() for s in found.sessions] + [found.totals()])
            else:
                for item in found.sessions:
                    d = item.as_dict()
                    typer.echo(f"{d['agent']}  {d['session']}  "
                               f"{count(d['conversations'], 'conversation')}, "
                               f"{count(d['messages'], 'message')}, "
                               f"{d['first'] or '?'} to {d['last'] or '?'}, about "
                               f"{d['estimatedInputTokens']:,} input tokens")
                typer.echo(f"History: {found.line()}; `zettelclaw import` brings it in.")
            return
        if not found.conversations:
            typer.echo("No history to import.", err=True)
            if as_json:
                emit_json({**found.totals(), "extracted": 0, "failed": 0, "entries": 0})
            return
        if found.large and not yes:
            if _on_terminal():
                if not typer.confirm(f"Import {found.line()}?", default=False, err=True):
                    raise typer.Exit(1)
            else:
                raise UsageError(f"a large import ({found.line()}): run it again with --yes, "
                                 "or see it first with --dry-run")

        def report(result) -> None:
            if result.status == "failed":
                typer.echo(f"failed: {result.message}", err=True)
            elif result.status == "busy":  # a hook is extracting it: run import again later
                typer.echo(f"{result.message}; run `zettelclaw import` again", err=True)

        from ..sweep import import_history

        summary = import_history(found, concurrency=concurrency, since=window,
                                 on_result=report)
        conversations = sum(r.segments for r in summary.results)
        u = summary.usage
        line = (f"Import: {count(conversations, 'conversation')} from "
                f"{count(summary.extracted, 'session')}, {summary.failed} failed; "
                f"{count(summary.entries, 'entry')}; tokens: {u.input} input, "
                f"{u.output} output, {u.cache_read} cache read, {u.cache_creation} cache write")
        if as_json:
            emit_json({**summary.as_dict(), "conversations": conversations})
        else:
            typer.echo(line)
        if summary.failed:
            raise typer.Exit(1)


def _on_terminal() -> bool:
    """A person can answer: stdin and stdout are terminals."""
    return sys.stdin.isatty() and sys.stdout.isatty()
