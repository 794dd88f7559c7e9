"""``zettelclaw init``: make zettelclaw the memory of an OpenClaw agent (``--undo`` reverses)."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Annotated, Optional

import typer

OpenClawOption = Annotated[Optional[str], typer.Option(
    "--openclaw", metavar="PATH",
    help="The openclaw executable. Default: $OPENCLAW_BIN, then `openclaw` on PATH.",
    show_default=False)]


def register(app: typer.Typer) -> None:
    @app.command()
    def init(
        dry_run: Annotated[bool, typer.Option(
            "--dry-run", help="List every change and change nothing.")] = False,
        undo: Annotated[bool, typer.Option(
            "--undo", help="Give the memory slot back to memory-core and remove what init "
                           "added (the log itself is kept).")] = False,
        timezone: Annotated[Optional[str], typer.Option(
            "--tz", help="IANA timezone of the nightly briefing. Default: the plugin config's "
                         "cron.timezone, else this machine's zone.", show_default=False)] = None,
        openclaw: OpenClawOption = None,
        vault: Annotated[Optional[Path], typer.Option(
            "--vault", metavar="DIR",
            help="Also render the memory as an Obsidian vault in DIR (one folder per agent, "
                 "DIR/<agent id>), built after each nightly briefing (plugin config "
                 "vault.path).", show_default=False)] = None,
    ) -> None:
        """Make zettelclaw OpenClaw's memory; safe to run again, it only does what is missing.

        Creates the log directory, links the plugin, selects the memory slot, writes the config,
        installs the skill, adds the MEMORY.md markers and registers the nightly briefing.
        """
        from .. import openclaw as oc
        from .. import paths
        from ..counts import count

        state_dir = paths.openclaw_state_dir()
        before = _names_in(state_dir)  # what OpenClaw's own CLI adds there, said by a dry run
        cli = oc.OpenClawCLI.find(openclaw)
        if vault is not None and undo:
            from ..errors import UsageError

            raise UsageError("--vault and --undo do not go together")
        installer = oc.Installer(cli, timezone=timezone, vault=_absolute(vault))
        report = installer.plan_undo() if undo else installer.plan_init()
        if cli is None:
            typer.echo("No `openclaw` CLI found: config changes go straight into "
                       f"{installer_config_path()} after a backup.", err=True)
        _print_plan(report, dry_run=dry_run)
        if report.problems:  # everything is checked before the first change, never half-way
            from ..errors import ZettelclawError

            would = "init would stop" if dry_run else "init stopped"
            more = len(report.problems) - 1
            raise ZettelclawError(
                f"{would} before changing anything: {report.problems[0]}"
                + (f" (and {count(more, 'more problem')}: see 'error' above)" if more else ""))
        history = None
        if not undo:  # recorded before the config write: its hot reload starts a sweep
            from ..history import init_line, install_moment

            history = init_line(install_moment(record=not dry_run), record=not dry_run)
        if dry_run:
            if history:
                typer.echo(history)
            made = _made_by_openclaw(state_dir, before)
            if made:
                typer.echo(f"init changed nothing; OpenClaw's own CLI, run to read its config, "
                           f"plugins and cron jobs, created {made} in {state_dir} (as any "
                           "`openclaw` command does when they are missing).")
            return
        oc.apply(report)
        changed = sum(1 for s in report.steps if s.changes)
        manual = [s for s in report.steps if s.manual]
        if undo:
            typer.echo(f"Undone ({count(changed, 'change')}). Restart the gateway: {RESTART}")
        elif changed:
            typer.echo(f"Done ({count(changed, 'change')}). Restart the gateway to load the "
                       "plugin: "
                       f"{RESTART}")
        else:
            typer.echo("Nothing to do: zettelclaw is already OpenClaw's memory.")
        for note in report.notes:
            typer.echo(note)
        if history:
            typer.echo(history)
        if not undo:
            _say_model_key()
        if manual:
            typer.echo(f"{count(len(manual), 'step')} need{'s' if len(manual) == 1 else ''} "
                       "you (see 'todo' above); "
                       "`zettelclaw doctor` checks them.")


RESTART = ("openclaw gateway restart (a gateway run in a terminal: stop it and start it again "
           "with `openclaw gateway run`)")


def _say_model_key() -> None:
    """Extraction needs an Anthropic key: say so at install time when none is findable."""
    from ..credentials import fix_text, lookup

    if lookup().credential is None:
        typer.echo(f"Model key: none found; conversations wait for one. Fix: {fix_text()}")


def _names_in(directory: Path) -> set[str] | None:
    try:
        return set(os.listdir(directory))
    except OSError:
        return None


def _made_by_openclaw(state_dir: Path, before: set[str] | None) -> str:
    """What appeared in OpenClaw's state directory since ``before`` (its CLI's own state
    database and temp folder on 2026.9), as a list to read; empty when nothing did."""
    after = _names_in(state_dir)
    if after is None:
        return ""
    if before is None:
        return "the directory itself"
    new = sorted(after - before)
    shown = [f"{name}/openclaw.sqlite" if name == "state"
             and (state_dir / name / "openclaw.sqlite").exists()
             else name + ("/" if (state_dir / name).is_dir() else "") for name in new]
    return ", ".join(shown)


def _absolute(path: Path | None) -> Path | None:
    import os

    return Path(os.path.abspath(os.path.expanduser(str(path)))) if path is not None else None


def installer_config_path() -> str:
    from .. import paths

    return str(paths.openclaw_config_path())


def _print_plan(report, *, dry_run: bool) -> None:
    if dry_run:
        typer.echo("Dry run: nothing is changed. init would:")
    marks = {"ok": "ok", "manual": "todo", "change": "change", "later": "later",
             "error": "error"}
    for step in report.steps:
        typer.echo(f"  {marks[step.status]:<7}{step.what}")
        said = step.problem or step.manual or step.later
        if said:
            typer.echo(textwrap.indent(said, " " * 9))
