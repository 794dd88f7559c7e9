"""``zettelclaw why``: what memory the model was shown, and why (the receipts)."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from ._options import JsonOption


def register(app: typer.Typer) -> None:
    @app.command()
    def why(
        entry: Annotated[Optional[str], typer.Argument(
            metavar="[ENTRY_ID]",
            help="An entry id: every turn it was put before the model.",
            show_default=False)] = None,
        turn: Annotated[Optional[str], typer.Option(
            "--turn", help="One turn (OpenClaw's message id): what was put before the "
            "model, and why, in order.")] = None,
        session: Annotated[Optional[str], typer.Option(
            "--session", help="One session (its id, a start of it, or its key): every "
            "turn's.")] = None,
        as_json: JsonOption = False,
    ) -> None:
        """Show what memory was put before the model, when, and why, from the receipts.

        For a turn (`--turn`) or a session (`--session`), each entry injected and why, in
        order: the last handoff, the words a recalled entry matched and its score, a
        memory_search or memory_get answer. For an entry id, every turn it was put before the
        model. Without any: the last turn. A table on a terminal, JSON Lines when piped.
        """
        from ..render import console, emit_json_lines, want_json
        from ..why import rows, table

        found = rows(entry=entry, turn=turn, session=session)
        if want_json(as_json):
            emit_json_lines(found)
            return
        if not found:
            asked = (f"entry {entry}" if entry else f"turn {turn}" if turn
                     else f"session {session}" if session else "any turn")
            print(f"No receipts for {asked} (receipts are kept "
                  "plugins.entries.zettelclaw.config.receipts.keepDays days, 90 by default).",
                  file=sys.stderr)
            return
        console().print(table(found))
