"""The commands OpenClaw calls on every turn, answered without Typer, Rich or pydantic.

``recall --handoff`` runs before every prompt (the handoff and the recalled entries in one
process; ``handoff`` and ``recall`` alone as well) and ``search --json`` behind every
``memory_search``; ``sweep`` every night and at every gateway start, nothing new most times;
Typer's start-up alone would cost more than either. :func:`serve` answers exactly these forms
and returns False, having printed nothing, for anything else (``--help``, a table on a
terminal, a usage error...), which the full CLI (:mod:`zettelclaw.cli`) then handles with the
same output and the same errors. A test checks that both give the same bytes.

    [--home D] [--workspace D] handoff [--json | --text] [--agent ID[,ID...]]...
                                       [--session-key K]
    [--home D] [--workspace D] search [WORDS...] [filters] [--agent ID[,ID...]]... [--limit N]
                                      [--all] [--json] [--session-key K]
                                      [--sender-is-owner | --sender-not-owner] [-- WORDS]
    [--home D] [--workspace D] recall [--json | --text] [--handoff] [--agent ID[,ID...]]...
                                      [--session-key K] [--] MESSAGE...
    [--home D] [--workspace D] sweep [-j N] [--gateway-start TIME] [--json | --text]
                                     (nothing new)
"""

from __future__ import annotations

import os
import sys

_GLOBAL = ("--home", "--workspace")
_ENV = {"--home": "ZETTELCLAW_HOME", "--workspace": "OPENCLAW_WORKSPACE_DIR"}
# rank.SMALL_LOG, known before rank is imported (tests/test_kept_counts.py holds them equal)
SMALL_LOG = 4 << 20
_FILTERS = ("type", "subject", "status", "session", "since", "until")
_SEARCH_VALUED = {"--limit": "limit", "-n": "limit", "--type": "type", "-t": "type",
                  "--subject": "subject", "-s": "subject", "--status": "status",
                  "--session": "session", "--since": "since", "--until": "until",
                  "--session-key": "session_key", "--turn": "turn",
                  "--session-id": "session_id", "--tool-call": "tool_call"}
# the session asking, and the turn the plugin names for its receipt (zettelclaw.receipts)
_KEY = {"--session-key": "session_key", "--turn": "turn", "--session-id": "session_id",
        "--tool-call": "tool_call"}
_SENDER = ("--sender-is-owner", "--sender-not-owner")


def serve(argv: list[str]) -> bool:
    """Answer ``argv`` here if it is one of the hot forms; False to hand it to the full CLI."""
    rest = _global_options(argv)
    if rest is None or not rest:
        return False
    command, args = rest[0], rest[1:]
    if command in ("search", "recall"):
        # a turn lives for milliseconds and makes no garbage cycles worth finding: the
        # collector's passes over the parsed candidate lines cost it about 5%
        import gc

        gc.disable()
        try:
            answered = (_search if command == "search" else _recall)(args)
        finally:
            gc.enable()
        return answered
    if command == "handoff":
        return _handoff(args)
    if command == "sweep":
        return _sweep(args)
    return False


def _global_options(argv: list[str]) -> list[str] | None:
    """Apply ``--home`` / ``--workspace`` (as the full CLI would) and return what follows."""
    found: dict[str, str] = {}
    args = list(argv)
    while args and args[0].partition("=")[0] in _GLOBAL:
        name, eq, value = args.pop(0).partition("=")
        if not eq:
            if not args:
                return None
            value = args.pop(0)
        found[name] = value
    for name, value in found.items():
        os.environ[_ENV[name]] = os.path.abspath(os.path.expanduser(value))
    return args


class _Args:
    """A hot command's arguments: its flags, ``--agent`` values, valued options, words."""

    def __init__(self) -> None:
        self.flags: set[str] = set()
        self.agents: list[str] = []
        self.opts: dict[str, str] = {}
        self.words: list[str] = []


def _parse(argv: list[str], flags: tuple[str, ...], valued: dict[str, str] | None = None,
           words: bool = True) -> _Args | None:
    """Parse ``argv`` the way the full CLI would; None for anything it must answer instead
    (an unknown option, a missing or repeated value, words where none are taken)."""
    out = _Args()
    args = iter(argv)
    for arg in args:
        name, eq, inline = arg.partition("=")
        if arg == "--" and words:  # the plugin's form: options, then -- and the words
            out.words.extend(args)
        elif arg in flags:
            out.flags.add(arg)
        elif name == "--agent" or (valued and name in valued and (eq or arg == name)):
            value = inline if eq else next(args, None)
            if value is None:
                return None
            if name == "--agent":
                out.agents.append(value)
            elif valued[name] in out.opts:
                return None
            else:
                out.opts[valued[name]] = value
        elif arg.startswith("-") or not words:
            return None
        else:
            out.words.append(arg)
    return out


def _answer(print_it, command: str) -> bool:
    """Run ``print_it()``; a closed pipe is quiet, a domain error is one ``Error:`` line (and,
    for a bad value, the line naming ``command``'s help, as the full CLI says it)."""
    from .errors import BadValue, ZettelclawError, error_line, os_error

    try:
        print_it()
    except BrokenPipeError:  # `zettelclaw ... | head`
        _quiet_stdout()
    except (ZettelclawError, OSError) as exc:
        error = os_error(exc) if isinstance(exc, OSError) else exc
        print(f"Error: {error_line(str(error))}", file=sys.stderr)
        if isinstance(error, BadValue):
            print(f"Try 'zettelclaw {command} --help'.", file=sys.stderr)
        sys.exit(error.exit_code)
    return True


def _handoff(argv: list[str]) -> bool:
    args = _parse(argv, ("--json", "--text"), _KEY, words=False)
    if args is None:
        return False
    from .handoff import print_handoff

    return _answer(lambda: print_handoff(_as_json(args.flags), args.agents,
                                         args.opts.get("session_key"), _turn(args.opts)),
                   "handoff")


def _as_json(flags) -> bool:
    """JSON with --json or when piped, text with --text (the plugin's form) or on a terminal."""
    return "--text" not in flags and ("--json" in flags or not sys.stdout.isatty())


def _recall(argv: list[str]) -> bool:
    args = _parse(argv, ("--json", "--text", "--handoff"), _KEY)
    if args is None:
        return False
    from .recall import print_recall

    return _answer(lambda: print_recall(" ".join(args.words), _as_json(args.flags),
                                        args.agents or None,
                                        with_handoff="--handoff" in args.flags,
                                        session_key=args.opts.get("session_key"),
                                        turn=_turn(args.opts)), "recall")


def _turn(opts: dict[str, str]):
    """The plugin's turn (``--turn``), whose receipt the command writes; None without it."""
    if not opts.get("turn"):
        return None
    from .receipts import Turn

    return Turn.of(opts)


def _sweep(argv: list[str]) -> bool:
    """A whole sweep with nothing new (every night, every gateway start) is a start-up; with
    anything to extract or report, the full CLI sweeps."""
    args = _parse(argv, ("--json", "--text"), {"-j": "jobs", "--concurrency": "jobs",
                                      "--gateway-start": "start"}, words=False)
    if args is None or args.agents:
        return False
    jobs = args.opts.get("jobs", "4")
    if not (jobs.isdigit() and 1 <= int(jobs) <= 64):
        return False
    if "start" in args.opts:
        from .clock import parse_ts

        if parse_ts(args.opts["start"]) is None:
            return False
    from .sweep import quiet

    summary = quiet()
    if summary is None:
        return False
    if _as_json(args.flags):
        from .render import emit_json

        return _answer(lambda: emit_json(summary.as_dict()), "sweep")
    return _answer(lambda: print(summary.line(), flush=True), "sweep")


def _search(argv: list[str]) -> bool:
    args = _parse(argv, ("--json", "--all") + _SENDER, _SEARCH_VALUED)
    if args is None or len(args.flags & set(_SENDER)) > 1:
        return False
    opts, text, agents = args.opts, args.words, args.agents
    if args.flags & set(_SENDER):  # what OpenClaw said of the turn's sender
        opts["sender_is_owner"] = "--sender-is-owner" in args.flags
    as_json, include_replaced = "--json" in args.flags, "--all" in args.flags
    if not (as_json or not sys.stdout.isatty()):
        return False  # a table for people: the full CLI
    from . import paths
    from .errors import ZettelclawError

    words = " ".join(text) or None
    if text and not (words or "").strip():
        return False  # a blank query: the full CLI says there is no word to search for
    started = None
    if words and not any(opts.get(name) for name in _FILTERS):
        return _search_words(words, opts, agents, include_replaced)
    try:
        if words:
            from .rank import MAX_QUERY_CHARS, analyze, start_scan

            if len(words) > MAX_QUERY_CHARS:
                return False  # the full CLI says what is wrong, the way it always does

            # rg first: the imports and checks below happen while it reads the log
            started = start_scan(paths.log_path(), analyze(words))
        else:
            started = _start_filtered(opts)
        from .query import Query, parse_when, run

        limit = opts.get("limit")
        query = Query(
            text=words, type=opts.get("type"), subject=opts.get("subject"),
            status=opts.get("status"), session=opts.get("session"),
            since=parse_when(opts["since"]) if opts.get("since") else None,
            until=parse_when(opts["until"], end_of_day=True) if opts.get("until") else None,
            include_replaced=include_replaced, limit=int(limit) if limit is not None else None,
            agents=paths.agent_scope(agents), default_agent=paths.default_agent(),
            person=_person(opts))
        if words:
            from .rank import rank

            results = rank(query, started=started)
            if not results and not analyze(words):
                return False  # no word to search for: the full CLI says so
        else:
            results = run(query, started=started)
    except (ZettelclawError, ValueError, OSError, OverflowError):
        if started is not None:
            started.kill()
        return False  # the full CLI says what is wrong, the way it always does
    return _print_results(results, opts, agents, words)


def _search_words(words: str, opts: dict[str, str], agents: list[str],
                  include_replaced: bool) -> bool:
    """``search WORDS`` without filters (``memory_search``'s form): the ranker asked with
    recall's light question; a log below SMALL_LOG read in Python (no rg process, no threads,
    no ``re``), a larger one scanned by rg, started before the rest is imported."""
    from . import paths
    from .errors import ZettelclawError
    from .rank import MAX_QUERY_CHARS

    limit = opts.get("limit")
    if len(words) > MAX_QUERY_CHARS or limit is not None and not _positive(limit):
        return False  # the full CLI says what is wrong, the way it always does
    started = None
    try:
        log = paths.log_file()
        if not _small(log):
            from .rank import analyze, start_scan

            started = start_scan(log, analyze(words))
        from .rank import SMALL_LOG, rank
        from .recall import Question

        query = Question(words, paths.agent_scope(agents), paths.default_agent(),
                         limit=int(limit) if limit is not None else None,
                         include_replaced=include_replaced, person=_person(opts))
        results = rank(query, started=started, python_below=SMALL_LOG)
        if not results:
            from .rank import analyze

            if not analyze(words):
                return False  # no word to search for: the full CLI says so
    except (ZettelclawError, ValueError, OSError, OverflowError):
        if started is not None:
            started.kill()
        return False  # the full CLI says what is wrong, the way it always does
    return _print_results(results, opts, agents, words)


def _person(opts: dict) -> str | None:
    """Whose session asks (``--session-key`` and the sender: :func:`zettelclaw.people.caller`),
    None for the terminal (every person's)."""
    key, sender = opts.get("session_key"), opts.get("sender_is_owner")
    if key is None and sender is None:
        return None
    from .people import caller

    return caller(key, sender)


def _positive(value: str) -> bool:
    return value.isascii() and value.isdigit() and int(value) >= 1


def _small(log: str) -> bool:
    """Whether the log is read in Python (see SMALL_LOG)."""
    try:
        return os.stat(log).st_size <= SMALL_LOG
    except OSError:
        return True


def _print_results(results: list[dict], opts: dict[str, str] | None = None,
                   agents: list[str] | None = None, words: str | None = None) -> bool:
    """A search's results as JSON Lines; a closed pipe (``| head``) is quiet. With the
    plugin's ``--turn`` (memory_search), what it answered is receipted."""
    from .jsonlight import write_lines

    try:
        write_lines(results)
    except BrokenPipeError:
        _quiet_stdout()
    turn = _turn(opts or {})
    if turn is not None:
        from .receipts import SEARCH, answer_items, record

        record(turn, SEARCH, answer_items(results, SEARCH, words), agents=agents,
               session_key=(opts or {}).get("session_key"))
    return True


def _start_filtered(opts: dict[str, str]):
    """rg's passes for a search by filters alone (:class:`zettelclaw.ripgrep.Filtered`),
    started before the imports they then overlap: for the values a line must hold, as
    :meth:`zettelclaw.query.Query.needles` gives them, the longest first."""
    from . import paths
    from .ripgrep import Filtered

    try:
        needles = [b'"' + opts[name].encode() + b'"'
                   for name in ("type", "subject", "status", "session") if opts.get(name)]
    except UnicodeEncodeError:
        return None
    needles.sort(key=len, reverse=True)
    return Filtered.start(paths.log_file(), needles) if needles else None


def _quiet_stdout() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
