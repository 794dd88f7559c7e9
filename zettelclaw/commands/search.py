"""``zettelclaw search``: structured filters and keywords over the log."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._options import (
    AgentOption,
    JsonOption,
    SenderOption,
    SessionIdOption,
    SessionKeyOption,
    ToolCallOption,
    TurnOption,
    complete_subject,
    complete_type,
    nothing_found,
    parse_window,
    scope,
    text_command,
    turn_of,
)

TERMINAL_ROWS = 50  # without a query or --limit, a terminal shows the latest-dated this many


def register(app: typer.Typer) -> None:
    @app.command(cls=text_command())
    def search(
        query: Annotated[Optional[list[str]], typer.Argument(
            help="A question or keywords: ranks entries and memory files by relevance (BM25).",
            show_default=False)] = None,
        type_: Annotated[Optional[str], typer.Option(
            "--type", "-t", help="task, fact, decision, question or handoff.",
            autocompletion=complete_type)] = None,
        subject: Annotated[Optional[str], typer.Option(
            "--subject", "-s", help="Subject slug.", autocompletion=complete_subject)] = None,
        status: Annotated[Optional[str], typer.Option(
            "--status", help="Task status: open or done.")] = None,
        session: Annotated[Optional[str], typer.Option(
            "--session", help="OpenClaw sessionId.")] = None,
        since: Annotated[Optional[str], typer.Option(
            "--since", help="From this time on: 2026-02-20, an ISO time, 7d / 12h / 2w.")] = None,
        until: Annotated[Optional[str], typer.Option(
            "--until", help="Before this time (a bare date includes that day).")] = None,
        all_: Annotated[bool, typer.Option(
            "--all", help="Include replaced entries, marked with replacedBy.")] = False,
        limit: Annotated[Optional[int], typer.Option(
            "--limit", "-n",
            help="At most N results: the best N with a query (default 20), else the N most "
                 "recent (default on a terminal: 50 and a line saying how many more; piped: "
                 "all).")] = None,
        agent: AgentOption = None,
        session_key: SessionKeyOption = None,
        sender_is_owner: SenderOption = None,
        as_json: JsonOption = False,
        explain: Annotated[bool, typer.Option(
            "--explain",
            help="With a query: show why each result ranked where it did (per-term BM25, "
                 "proximity, subject, month, session boosts).")] = False,
        turn: TurnOption = None,
        session_id: SessionIdOption = None,
        tool_call: ToolCallOption = None,
    ) -> None:
        """Search the log. JSON Lines when piped or with --json, a table on a terminal."""
        from ..query import Query, run
        from ..render import emit_entries, want_json

        receipt = turn_of(turn, session_id, tool_call)

        def receipted(results: list[dict]) -> None:  # the plugin's memory_search answer
            if receipt is not None:
                from ..receipts import SEARCH, answer_items, record

                record(receipt, SEARCH, answer_items(results, SEARCH, q.text), agents=agent,
                       session_key=session_key)

        q = Query(
            text=" ".join(query or []) or None, type=type_, subject=subject, status=status,
            session=session, since=parse_window(since), until=parse_window(until, end=True),
            include_replaced=all_, limit=limit, **scope(agent, session_key, sender_is_owner),
        )
        if query is not None and not _searchable(" ".join(query)):
            # one rule for "", "   " and "the": words given, none to search for
            typer.echo(no_words(" ".join(query)), err=True)
            return
        if q.text:
            from ..rank import rank

            results = rank(q, explain=explain)
            emit_entries(results, as_json, show_score=True,
                         empty_message=nothing_found("No matching entries."))
            if explain and results and not want_json(as_json):
                print_explanations(results)
            receipted(results)
            return
        found = run(q)
        if limit is None and not want_json(as_json) and len(found) > TERMINAL_ROWS:
            from ..query import latest

            # a table of 20,000 rows helps nobody: the most recent, and how to see the rest
            shown = [entry for _, entry in latest(enumerate(found), TERMINAL_ROWS)]
            emit_entries(shown, as_json)
            typer.echo(f"{len(found) - len(shown):,} more (the {len(shown)} most recent are "
                       f"shown): --limit N shows N; piped output lists them all.", err=True)
            receipted(shown)
            return
        emit_entries(found, as_json, empty_message=nothing_found("No matching entries."))
        receipted(found)


def _searchable(text: str) -> bool:
    from ..rank import analyze

    return bool(analyze(text))


def no_words(text: str) -> str:
    """What ``search`` says for a query with no word to search for: empty, blank, or only
    words too common or too short (``the``, ``a``), which every entry holds or none."""
    from ..counts import count
    from ..rank.english import keep, words

    dropped = list(dict.fromkeys(w for w in words(text) if not keep(w)))
    if not dropped:
        said = "the query is empty"
    else:
        shown = ", ".join(f'"{w}"' for w in dropped[:5]) + (", ..." if len(dropped) > 5 else "")
        said = (f"{count(len(dropped), 'word')} ({shown}) "
                f"{'is' if len(dropped) == 1 else 'are'} too common or too short to search for")
    return (f"No matching entries: {said}. Ask with the words that matter; without a query, "
            "`zettelclaw search` lists the latest entries.")


def print_explanations(results: list[dict]) -> None:
    """Why each result ranked where it did: the terms it matched and what each earned."""
    for item in results:
        name = item.get("id") or f"{item.get('path')}:{item.get('startLine')}"
        why = item.get("explain", {})
        parts = [f"{term} {info['score']:.2f} (idf {info['idf']:.2f}, tf "
                 + ", ".join(f"{f} {n}" for f, n in info["tf"].items()) + ")"
                 for term, info in why.get("terms", {}).items()]
        for boost, info in why.get("boosts", {}).items():
            parts.append(f"{boost} +{info['score']:.2f}")
        print(f"{name}  {item['score']:.2f} = " + " + ".join(parts))
