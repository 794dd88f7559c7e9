"""``zettelclaw handoff``: the last handoff, for the before_prompt_build hook.

``zettelclaw.__main__`` answers plain ``handoff`` calls before Typer is even imported; this
module is the same command for ``--help`` and for tests through the CLI runner.
"""

from __future__ import annotations

import typer

from ._options import (
    AgentOption,
    JsonOption,
    SessionIdOption,
    SessionKeyOption,
    TextOption,
    ToolCallOption,
    TurnOption,
    turn_of,
)


def register(app: typer.Typer) -> None:
    @app.command()
    def handoff(agent: AgentOption = None, as_json: JsonOption = False, text: TextOption = False,
                session_key: SessionKeyOption = None, turn: TurnOption = None,
                session_id: SessionIdOption = None, tool_call: ToolCallOption = None) -> None:
        """Print the last handoff and that session's open tasks and decisions.

        On a terminal or with --text, the block the plugin puts before each prompt; piped or
        with --json, the handoff entry and the tasks and decisions as one JSON object.
        Nothing when there is no handoff.
        """
        from ..handoff import print_handoff
        from ..render import want_json

        print_handoff(not text and want_json(as_json), agent, session_key,
                      turn_of(turn, session_id, tool_call))
