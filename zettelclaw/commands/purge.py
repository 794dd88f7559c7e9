"""``zettelclaw purge``: take entries' content off the disk, for good (zettelclaw/purge.py)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._options import AgentOption, JsonOption, complete_subject
from .subjects import YesOption, _confirm


def register(app: typer.Typer) -> None:
    @app.command()
    def purge(
        ids: Annotated[Optional[list[str]], typer.Argument(
            metavar="[ID]...", help="Entries to purge (each with its whole correction chain).",
            show_default=False)] = None,
        session: Annotated[Optional[str], typer.Option(
            "--session", metavar="ID", help="Every entry of this OpenClaw session.",
            show_default=False)] = None,
        subject: Annotated[Optional[str], typer.Option(
            "--subject", metavar="SLUG", help="Every entry about this subject.",
            autocompletion=complete_subject, show_default=False)] = None,
        match: Annotated[Optional[str], typer.Option(
            "--match", metavar="TEXT",
            help="Every entry whose content, detail or subject holds TEXT (ignoring case); "
                 "TEXT is also scrubbed from state.json, hooks.log and MEMORY.md's block.",
            show_default=False)] = None,
        agent: AgentOption = None,
        dry_run: Annotated[bool, typer.Option(
            "--dry-run", help="List what would be purged; change nothing.")] = False,
        yes: YesOption = False,
        finish: Annotated[bool, typer.Option(
            "--finish", help="Finish a purge that was killed or failed a step (brief "
                             "MEMORY.md again); `doctor` and `stats` say when one did.")] = False,
        as_json: JsonOption = False,
    ) -> None:
        """Remove entries' content from disk for good: this cannot be undone.

        Each purged line of log.jsonl becomes a tombstone in place (id, time, type, session,
        what it replaced, when it was purged), so ids and corrections still resolve; an
        entry's whole correction chain goes with it. The same text leaves state.json,
        hooks.log, brief.log and MEMORY.md's generated block (briefed again, without the
        model); where it is still found (your own part of MEMORY.md, another agent's
        entries), purge says so. The filters --session, --subject and --match all apply
        together. Asks first on a terminal (default no); needs --yes off one. Exit 1 when a
        step failed (a file it could not scrub, a MEMORY.md it could not brief again): the
        warnings say where the words still are.
        """
        from .. import paths
        from ..purge import Plan, Selection, plan
        from ..purge import purge as run
        from ..render import emit_json_lines, want_json

        if finish:
            if ids or session or subject or match:
                raise typer.BadParameter("--finish takes nothing else to purge",
                                         param_hint="--finish")
            report = run(None)
            _say(report, want_json(as_json))
            return
        selection = Selection(tuple(ids or ()), session, subject, match,
                              paths.agent_scope(agent), paths.default_agent())
        found: Plan = plan(selection, state=_state())
        if dry_run:
            if want_json(as_json):
                emit_json_lines(found.entries + found.pending)
            else:
                typer.echo("\n".join(_plan_lines(found)))
            return
        if found.entries or found.pending or match is not None:
            _confirm(yes, _plan_lines(found) + ["This cannot be undone."], "Purge?")
        report = run(selection)
        _say(report, want_json(as_json))


def _state() -> dict:
    from ..purge import _load_state

    return _load_state()


def _what(n: int) -> str:
    return f"{n} {'entry' if n == 1 else 'entries'}"


def _plan_lines(found) -> list[str]:
    from ..display import printable

    lines = [f"Would purge {_what(len(found.entries))} from log.jsonl:"
             if found.entries else "Nothing to purge in log.jsonl."]
    for entry in found.entries:
        lines.append(printable(f"  {entry['id']}  {str(entry.get('timestamp', ''))[:10]}  "
                               f"{entry.get('type')}  {entry.get('content', '')}"))
    if found.pending:
        lines.append(f"and {_what(len(found.pending))} waiting in state.json to be appended")
    for entry_id in found.already:
        lines.append(f"{entry_id}: purged already")
    if found.match is not None:
        lines.append(printable(f"and {found.match!r} wherever else it is in state.json, "
                               "hooks.log, brief.log and MEMORY.md's block"))
    return lines


def _say(report, as_json: bool) -> None:
    if as_json:
        from ..render import emit_json

        emit_json({"purged": sorted(report.plan.ids), "tombstones": report.purged,
                   "already": report.plan.already, "scrubbed": report.scrubbed,
                   "briefed": report.briefed, "left": report.left, "failed": report.failed})
    else:
        typer.echo(f"Purged {_what(report.purged)}" + (
            f" (and {_what(len(report.plan.pending))} waiting in state.json)"
            if report.plan.pending else "") + ".")
        for entry_id in report.plan.already:
            typer.echo(f"{entry_id}: purged already.")
        if report.scrubbed:
            typer.echo(f"Scrubbed: {', '.join(report.scrubbed)}.")
        for memory in report.briefed:
            typer.echo(f"Briefed again: {memory}.")
    from ..display import printable

    for where in report.left:
        typer.echo(printable(f"warning: still there: {where}"), err=True)
    if report.failed:
        raise typer.Exit(1)
