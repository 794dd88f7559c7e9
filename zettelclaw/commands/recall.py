"""``zettelclaw recall``: the memories relevant to a message, for the before_prompt_build hook.

``zettelclaw.hot`` answers the plugin's calls before Typer is even imported; this module is the
same command for ``--help`` and for tests through the CLI runner (one implementation:
:func:`zettelclaw.recall.print_recall`).
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._options import (
    AgentOption,
    JsonOption,
    SessionIdOption,
    SessionKeyOption,
    ToolCallOption,
    TurnOption,
    turn_of,
)


def register(app: typer.Typer) -> None:
    @app.command()
    def recall(
        message: Annotated[Optional[list[str]], typer.Argument(
            help="What the person just said (after --).", show_default=False)] = None,
        agent: AgentOption = None,
        session_key: SessionKeyOption = None,
        as_json: JsonOption = False,
        text: Annotated[bool, typer.Option(
            "--text", help="Print the block even when piped (the plugin's form).")] = False,
        handoff: Annotated[bool, typer.Option(
            "--handoff", help="First print what `zettelclaw handoff` prints, then an empty "
            "line (with --json: the handoff object, or null), then the recalled entries: "
            "the plugin's one process per prompt.")] = False,
        turn: TurnOption = None,
        session_id: SessionIdOption = None,
        tool_call: ToolCallOption = None,
    ) -> None:
        """Print the few entries relevant to MESSAGE, framed for the prompt; nothing for small
        talk or when no entry scores high enough. JSON Lines when piped or with --json."""
        from ..recall import print_recall
        from ..render import want_json

        print_recall(" ".join(message or []), not text and want_json(as_json), agent,
                     with_handoff=handoff, session_key=session_key,
                     turn=turn_of(turn, session_id, tool_call))
