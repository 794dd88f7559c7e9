"""Options and small helpers shared by several commands."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Optional

import typer

JsonOption = Annotated[bool, typer.Option(
    "--json", help="Print JSON (JSON Lines for lists); the default when stdout is not a terminal.")]


AgentOption = Annotated[Optional[list[str]], typer.Option(
    "--agent", metavar="ID[,ID...]|all",
    help="Whose memory: an OpenClaw agent id (default: OpenClaw's default agent), several "
         "(comma-separated or repeated: the first is the caller, the others shared with it), "
         "or all.", show_default=False)]


def scope(agent: list[str] | None) -> dict:
    """``Query`` keywords for ``--agent``: the agents in scope and the default agent."""
    from .. import paths

    return {"agents": paths.agent_scope(agent), "default_agent": paths.default_agent()}


def parse_window(value: str | None, *, end: bool = False) -> datetime | None:
    from ..query import parse_when

    return parse_when(value, end_of_day=end) if value else None
