"""``zettelclaw forget``: hide entries from every reader (reversible: ``--undo``)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._options import AgentOption, JsonOption, SenderOption, SessionKeyOption, complete_subject
from .subjects import DryRunOption, YesOption, _confirm


def register(app: typer.Typer) -> None:
    @app.command()
    def forget(
        ids: Annotated[Optional[list[str]], typer.Argument(
            metavar="[ID]...", help="Entry ids (any version of a corrected entry: its current "
                                    "version is forgotten).", show_default=False)] = None,
        session: Annotated[Optional[str], typer.Option(
            "--session", help="Every current entry of this session (its id, or the start of "
                              "it only one session has, such as the vault's 8 characters)."
        )] = None,
        subject: Annotated[Optional[str], typer.Option(
            "--subject", "-s", help="Every current entry about this subject.",
            autocompletion=complete_subject)] = None,
        match: Annotated[Optional[str], typer.Option(
            "--match", metavar="TEXT",
            help="Every current entry whose content, detail or subject holds TEXT (ignoring "
                 "case), as `purge --match` takes them.", show_default=False)] = None,
        undo: Annotated[bool, typer.Option(
            "--undo", help="Bring forgotten entries back, as they were.")] = False,
        dry_run: DryRunOption = False,
        yes: YesOption = False,
        agent: AgentOption = None,
        session_key: SessionKeyOption = None,
        sender_is_owner: SenderOption = None,
        as_json: JsonOption = False,
    ) -> None:
        """Forget entries: every reader (search, get, log, handoff, recall, brief, stats, the
        agent's tools) stops showing them. Nothing is erased: one line per entry is appended
        to the log, and `forget --undo ID...` brings them back (same ids, same dates).
        `zettelclaw search --all` lists them, marked forgotten. To remove the text from disk, purge
        it instead. Current entries that quote a forgotten one (a handoff, a correction's
        detail) are named; `--match TEXT` forgets every entry that holds the text.

        Asks first on a terminal (--yes: do not ask; needed off a terminal); --dry-run says
        what would change. With --session-key (the agent's memory_forget): only that person's
        own entries; another's id is not found.
        """
        from .. import forget as core
        from .. import paths
        from ..people import caller
        from ..render import emit_json_lines, want_json

        if subject is not None:  # as purge answers it: a usage error, exit 2
            from ..subjects import check_slug

            subject = check_slug(subject)
        scope = paths.agent_scope(agent)
        done = core.plan(list(ids or []), session=session, subject=subject, undo=undo,
                         agents=scope, default=paths.default_agent(), match=match,
                         person=caller(session_key, sender_is_owner))
        if session is not None and not done.entries:
            _check_session(done.session, scope)
        for note in done.notes:
            typer.echo(f"note: {note}", err=True)
        for entry in done.quoted:
            typer.echo(f"note: still quoted by {_line(entry)} (forget it too: zettelclaw "
                       f"forget {entry['id']}; or forget by text: --match TEXT)", err=True)
        verb = "bring back" if undo else "forget"
        lines = [f"Would {verb} {_count(len(done.entries))}:",
                 *(f"  {_line(e)}" for e in done.entries)]
        if dry_run or not done.entries:
            if want_json(as_json):
                emit_json_lines(done.entries)
            elif done.entries:
                typer.echo("\n".join(lines))
            else:
                typer.echo(f"Nothing to {verb}.", err=True)
            return
        _confirm(yes, lines, "Bring them back?" if undo else "Forget?")
        written = core.apply(done)
        # with any briefing an earlier forget or review close killed after its append owes
        for note in core.rebrief(written, agents=sorted(core.owed())):
            typer.echo(note if note.startswith("warning:") else f"note: {note}", err=True)
        named = {line["replaces"] for line in written}  # the entries, or (undo) their forgets
        changed = [e for e in done.entries
                   if (done.forgets[e["id"]]["id"] if undo else e["id"]) in named]
        if want_json(as_json):
            stamp = written[0]["timestamp"] if written else None
            emit_json_lines({**e, "forgotten": stamp} if not undo else e for e in changed)
            return
        if undo:
            typer.echo(f"Brought back {_count(len(changed))}")
        else:
            typer.echo(f"Forgot {_count(len(changed))}; undo: zettelclaw forget --undo "
                       + " ".join(e["id"] for e in changed))


def _check_session(session: str, scope) -> None:
    """An unknown session is not found (exit 1), as an unknown entry id is."""
    from .. import paths
    from ..errors import NotFoundError
    from ..log import Log

    default = paths.default_agent()
    for entry in Log().entries(records=True):
        if entry.get("session") == session and (
                scope is None or paths.entry_agent(entry, default) in scope):
            return
    raise NotFoundError(f"no entries of session {session}")


def _count(n: int) -> str:
    return f"{n} {'entry' if n == 1 else 'entries'}"


def _line(entry: dict) -> str:
    from ..display import printable

    content = " ".join(str(entry.get("content", "")).split())
    if len(content) > 80:
        content = content[:79] + "…"
    subject = f" [{entry['subject']}]" if entry.get("subject") else ""
    return printable(f"{entry['id']} {str(entry.get('timestamp', ''))[:10]} {entry['type']}"
                     f"{subject}: {content}")
