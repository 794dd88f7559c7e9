"""``zettelclaw paths``: every path as resolved right now."""

from __future__ import annotations

import typer

from ._options import JsonOption


def register(app: typer.Typer) -> None:
    @app.command("paths")
    def paths_(as_json: JsonOption = False) -> None:
        """Print the resolved log directory, files, workspace and OpenClaw config."""
        from .. import paths
        from ..render import emit_json, want_json

        resolved = paths.all_paths()
        if want_json(as_json):
            emit_json(resolved)
            return
        width = max(len(k) for k in resolved)
        for key, value in resolved.items():
            typer.echo(f"{key:<{width}}  {value}")
