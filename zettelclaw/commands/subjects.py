"""``zettelclaw subjects``: list, add, rename (and merge), remove subject slugs."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._options import JsonOption


def register(app: typer.Typer) -> None:
    subjects = typer.Typer(help="The subjects registry (subjects.json); alone: the list.",
                           invoke_without_command=True)
    app.add_typer(subjects, name="subjects")

    @subjects.callback()
    def default(ctx: typer.Context) -> None:
        """The subjects registry (subjects.json); `subjects` alone lists it."""
        if ctx.invoked_subcommand is None:
            list_(as_json=False)

    @subjects.command("list")
    def list_(as_json: JsonOption = False) -> None:
        """List known subjects."""
        from ..render import cell, console, emit_json_lines, want_json
        from ..subjects import Registry

        items = Registry.load().items()
        if want_json(as_json):
            emit_json_lines({"slug": slug, **record} for slug, record in items)
            return
        if not items:
            typer.echo("No subjects yet.", err=True)
            return
        from rich.table import Table

        table = Table(header_style="bold")
        for column in ("slug", "display", "type"):
            table.add_column(column)
        for slug, record in items:
            table.add_row(cell(slug), cell(record.get("display", "")), cell(record.get("type", "")))
        console().print(table)

    @subjects.command()
    def add(
        slug: Annotated[str, typer.Argument(help="Lowercase kebab-case, e.g. auth-migration.")],
        type_: Annotated[Optional[str], typer.Option(
            "--type", help="project, person, system, tool, ... (default project).")] = None,
        display: Annotated[Optional[str], typer.Option(help="Display name.")] = None,
    ) -> None:
        """Add a subject (or update its type / display name)."""
        from ..subjects import Registry

        record = Registry.load().add(slug, type_, display)
        typer.echo(f"{slug}: {record['display']} ({record['type']})")

    @subjects.command()
    def rename(
        old: Annotated[str, typer.Argument(help="The slug to rename.")],
        new: Annotated[str, typer.Argument(help="The new slug; an existing one means merge.")],
        dry_run: DryRunOption = False,
        yes: YesOption = False,
    ) -> None:
        """Rename a subject in the registry and in every log entry's subject field.

        A display name you set is kept. Asks first on a terminal (--yes: do not ask; needed
        off a terminal); --dry-run says what would change.
        """
        from ..subjects import Registry

        registry = Registry.load()
        plan = registry.plan_rename(old, new)
        if dry_run:
            typer.echo("\n".join(_rename_lines(plan)))
            return
        _confirm(yes, _rename_lines(plan), "Rename?")
        changed = registry.rename(old, new)
        typer.echo(f"Renamed {old} -> {new} ({_entries(changed)} changed)")

    @subjects.command()
    def remove(
        slug: Annotated[str, typer.Argument(help="The slug to remove.")],
        dry_run: DryRunOption = False,
        yes: YesOption = False,
    ) -> None:
        """Remove a subject from the registry (log entries keep their slug).

        Asks first on a terminal (--yes: do not ask; needed off a terminal); --dry-run says
        what would change.
        """
        from ..subjects import Registry

        registry = Registry.load()
        plan = registry.plan_remove(slug)
        if dry_run:
            typer.echo("\n".join(_remove_lines(plan)))
            return
        _confirm(yes, _remove_lines(plan), "Remove?")
        registry.remove(slug)
        typer.echo(f"Removed {slug}")


DryRunOption = Annotated[bool, typer.Option(
    "--dry-run", help="Say what would change (the records, how many entries); change nothing.")]
YesOption = Annotated[bool, typer.Option(
    "--yes", "-y", help="Do it without asking (needed when not run on a terminal).")]


def _entries(n: int) -> str:
    return f"{n} log {'entry' if n == 1 else 'entries'}"


def _record(slug: str, record: dict | None) -> str:
    import json

    if record is None:
        return f"{slug} (not in the registry)"
    return f"{slug} {json.dumps(record, ensure_ascii=False)}"


def _rename_lines(plan: dict) -> list[str]:
    old, new = plan["old"], plan["new"]
    into = f"merge into the existing {new}" if plan["merge"] else f"become {new}"
    return [f"{old} would {into}:",
            f"  subjects.json: {_record(old, plan['before'])}",
            f"             ->  {_record(new, plan['after'])}",
            f"  log.jsonl: {_entries(plan['entries'])} would get subject {new}"]


def _remove_lines(plan: dict) -> list[str]:
    n = plan["entries"]
    return [f"{plan['slug']} would be removed:",
            f"  subjects.json: {_record(plan['slug'], plan['record'])}",
            f"  log.jsonl: unchanged ({_entries(n)} keep{'s' if n == 1 else ''} the slug)"]


def _confirm(yes: bool, plan: list[str], question: str) -> None:
    """Go on with --yes, or when the person at the terminal, shown the plan, says yes (default
    no; no: exit 1). Off a terminal without --yes: a usage error. Either way nothing changed."""
    from ..errors import UsageError

    if yes:
        return
    if not _on_terminal():
        raise UsageError("not on a terminal: add --yes to do it, or --dry-run to see what "
                         "would change; nothing changed")
    typer.echo("\n".join(plan), err=True)
    try:
        agreed = typer.confirm(question, default=False, err=True)
    except typer.Abort:  # end of input or Ctrl-C: no
        typer.echo("", err=True)
        agreed = False
    if not agreed:
        typer.echo("Nothing changed.", err=True)
        raise typer.Exit(1)


def _on_terminal() -> bool:
    """A person can answer: stdin is a terminal (the question and the plan go to stderr)."""
    import sys

    return sys.stdin.isatty()
