"""``zettelclaw log``: the most recent entries, for people."""

from __future__ import annotations

from typing import Annotated

import typer

from ._options import JsonOption


def register(app: typer.Typer) -> None:
    @app.command("log")
    def log_(
        count: Annotated[int, typer.Option("-n", "--count", min=1, help="How many entries.")] = 20,
        as_json: JsonOption = False,
    ) -> None:
        """Show the last N entries, oldest first (replaced ones marked)."""
        from itertools import islice

        from .. import paths
        from ..log import Log
        from ..render import emit_entries

        recent = list(islice(Log(paths.log_path()).reversed(), count))[::-1]
        emit_entries(recent, as_json, empty_message="The log is empty.")
