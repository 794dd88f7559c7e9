"""``zettelclaw subjects``: list, add, rename (and merge), remove subject slugs."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._options import JsonOption


def register(app: typer.Typer) -> None:
    subjects = typer.Typer(help="The subjects registry (subjects.json).", no_args_is_help=True)
    app.add_typer(subjects, name="subjects")

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
    ) -> None:
        """Rename a subject in the registry and in every log entry's subject field."""
        from ..subjects import Registry

        changed = Registry.load().rename(old, new)
        typer.echo(f"Renamed {old} -> {new} ({changed} log entries)")

    @subjects.command()
    def remove(slug: Annotated[str, typer.Argument(help="The slug to remove.")]) -> None:
        """Remove a subject from the registry (log entries keep their slug)."""
        from ..subjects import Registry

        Registry.load().remove(slug)
        typer.echo(f"Removed {slug}")
