"""``zettelclaw vault build``: the log as an Obsidian vault (design §7)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ._options import JsonOption

VaultOption = Annotated[Optional[Path], typer.Option(
    "--vault", metavar="DIR",
    help="The vault's root; each agent's vault is DIR/<agent id>. Default: the plugin "
         "config's vault.path (set by `zettelclaw init --vault DIR`).", show_default=False)]


def register(app: typer.Typer) -> None:
    vault = typer.Typer(help="The Obsidian vault rendered from the log, one per agent.",
                        no_args_is_help=True)
    app.add_typer(vault, name="vault")

    @vault.command("build")
    def build(
        vault_dir: VaultOption = None,
        agent: Annotated[Optional[str], typer.Option(
            "--agent", metavar="ID",
            help="Build this agent's vault only (default: every agent that has entries, each "
                 "into its own DIR/<agent id>).", show_default=False)] = None,
        dry_run: Annotated[bool, typer.Option(
            "--dry-run", help="List the files that would gain lines; write nothing.")] = False,
        as_json: JsonOption = False,
    ) -> None:
        """Append what is new in the log to the vault's journals and topic pages.

        Daily journals in 03 Journal/ (Log, Todo, Questions, Sessions) and one page per subject
        in 01 Notes/ (Log, Pending, Open Questions), with [[wikilinks]]. Append-only: lines
        already there, and a person's edits to them, are never rewritten. One line per file
        that gains lines (JSON Lines when piped); a summary on stderr.
        """
        run(vault_dir, agent=agent, dry_run=dry_run, as_json=as_json)


def run(vault_dir: Path | None, *, agent: str | None = None, dry_run: bool = False,
        as_json: bool = False, rows_out: bool = True) -> list:
    """Build and report (``brief`` calls this after the briefing when a vault is set, with
    ``rows_out=False``: only the summary, on stderr)."""
    from .. import paths, vault
    from ..render import emit_json_lines, want_json

    root = vault.root(vault_dir)
    agents = [paths.own_agent(agent)] if agent else None
    outcomes = vault.build(root, agents, dry_run=dry_run)
    as_data = want_json(as_json)
    rows = []
    for outcome in outcomes:
        for page in outcome.pages:
            if page.added:
                rows.append({"agent": outcome.agent, "file": str(outcome.vault / page.rel),
                             "new": page.new, "lines": page.added})
    if not rows_out:
        pass
    elif as_data:
        emit_json_lines(rows)
    else:
        for row in rows:
            verb = "new    " if row["new"] else "append "
            typer.echo(f"  {verb}{row['file']} (+{row['lines']})")
    for outcome in outcomes:
        typer.echo(_summary(outcome, dry_run), err=True)
        for note in outcome.notes:
            typer.echo(f"note: {note}", err=True)
        if outcome.undated:
            from ..counts import count

            typer.echo(f"warning: {count(outcome.undated, 'entry')} left out: unreadable "
                       "timestamp", err=True)
    return outcomes


def _summary(outcome, dry_run: bool) -> str:
    from ..counts import count

    head = "Would build" if dry_run else "Built"
    if not outcome.lines:
        return f"Vault of agent {outcome.agent} in {outcome.vault}: up to date."
    return (f"{head} the vault of agent {outcome.agent} in {outcome.vault}: "
            f"{count(len(outcome.created), 'new file')}, "
            f"{count(len(outcome.changed), 'file')} appended to, "
            f"{count(outcome.lines, 'line')} from {count(outcome.entries, 'entry')}.")
