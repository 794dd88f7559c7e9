"""Options and small helpers shared by several commands."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import typer

JsonOption = Annotated[bool, typer.Option(
    "--json", help="Print JSON (JSON Lines for lists); the default when stdout is not a terminal.")]


def parse_window(value: str | None, *, end: bool = False) -> datetime | None:
    from ..query import parse_when

    return parse_when(value, end_of_day=end) if value else None
