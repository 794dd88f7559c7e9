"""``zettelclaw log``: the latest-dated entries, for people."""

from __future__ import annotations

from typing import Annotated

import typer

from ._options import AgentOption, JsonOption, nothing_found, scope


def register(app: typer.Typer) -> None:
    @app.command("log")
    def log_(
        count: Annotated[int, typer.Option("-n", "--count", help="How many entries (at least 1).")
                         ] = 20,
        agent: AgentOption = None,
        as_json: JsonOption = False,
    ) -> None:
        """Show the N latest-dated entries, oldest first; a replaced one is marked.

        On a terminal a replaced entry is struck through, followed by `→` and the id of the
        entry that replaced it; in JSON it has `replacedBy`.

        By when their conversations happened, not by their place in the file (a late
        extraction appends older entries at the end); equal dates keep file order.
        """
        from ..errors import BadValue
        from ..query import latest_entries
        from ..render import emit_entries

        if count < 1:  # worded and shaped as search's --limit 0
            raise BadValue("'-n' / '--count'", count, "is not at least 1")

        emit_entries(latest_entries(count, **scope(agent)), as_json,
                     empty_message=nothing_found("No entries."))
