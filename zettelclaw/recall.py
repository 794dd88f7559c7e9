"""Recall each turn: the few entries relevant to what the person just said (issue 13).

The plugin runs ``zettelclaw recall -- MESSAGE`` in ``before_prompt_build`` beside the handoff
and puts what it prints after the handoff, in the same framed block (so it is never stored in a
transcript nor extracted again). Precision comes first: a turn that injects nothing costs
nothing, a turn that injects noise costs the model's attention.

* The message's words go through the ranker of :mod:`zettelclaw.rank` (the one ``search``
  uses: BM25F and its re-ranking), log entries only: the memory files are already in the
  prompt. Replaced entries never come back (the ranker resolves them).
* Nothing for small talk: a message whose words (stop words aside) are all conversational
  filler ("thanks!", "ok", "hi there", "lol", "sounds good") asks for no memory.
* An entry qualifies when its score clears ``minScore`` and is at least ``RELATIVE`` of the
  best one's (the tail of a ranking is what the question did not ask about); at most
  ``maxEntries`` entries and ``maxChars`` characters of block.
* Never an entry the prompt already has: the ones the handoff block shows (its handoff, open
  tasks and decisions) and the ones the workspace's MEMORY.md generated briefing lists (the
  briefing carries no ids: an entry is there when its one-line content is).
* Same message, same log: same bytes (prompt caching). No clock, no randomness; ties are broken
  by the ranker's order (score, then date).

Configuration: ``plugins.entries.zettelclaw.config.recall`` (``enabled``, ``maxEntries``,
``maxChars``, ``minScore``), the thresholds tuned on LoCoMo (``bench/recall_bench.py``).
"""

from __future__ import annotations

import os
import sys

# minScore: in units of one match of a word only one entry holds (see match_unit)
DEFAULTS = {"enabled": True, "maxEntries": 5, "maxChars": 1500, "minScore": 1.4}
# an entry scoring under this share of the best one is the ranking's tail, not the answer
RELATIVE = 0.6
# how many ranked entries to look at before the filters above
_DEPTH = 20
# candidate lines scored exactly per turn (search scores up to rank.EXACT_LIMIT, 500): recall
# shows at most 5 entries, and the candidates come best-first by the counts the scan saw. On
# LoCoMo's 1,536 questions and 800 of the year benchmark's messages at day 365, 200 recalls
# exactly what 500 does (100 does not: 45 of the questions differ). A question about the busiest
# subject scored 500 lines there: 6 of the turn's 19 ms above Python's start.
EXACT = 200
_ITEM_CHARS = 400
TITLE = "## Recalled memories (relevant to the message)"

# conversational filler: words that alone ask nothing of memory (stemmed like the ranker's
# query terms, see FILLER_STEMS); a message of only these (and stop words) injects nothing
FILLER_WORDS = """
thanks thank thx ty tysm cheers ta appreciate appreciated
ok okay okey k kk alright right fine sure yes yeah yep yup ya yea no nope nah
hi hello hey heya hiya yo howdy greetings morning afternoon evening night goodnight gn gm
bye goodbye cya later see soon ttyl
lol lmao lmfao rofl haha hahaha hehe heh hah xd omg wow whoa oh ooh ah aha hmm hm um uh
cool nice great good awesome amazing perfect excellent wonderful lovely sweet neat brilliant
fantastic super fab terrific
sounds sound got gotcha understood noted makes sense agreed agree true indeed exactly totally
definitely absolutely course np problem worries welcome pleasure
please pls plz sorry oops whoops
how going doing are what up sup time today day
love like wait hold moment sec second minute
""".split()


_FILLER = frozenset(FILLER_WORDS)
# their stems, written out: stemming 134 words took longer than Python's start
# (tests/test_recall.py checks that they are FILLER_WORDS's stems)
FILLER_STEMS = frozenset("""
absolut afternoon agre ah aha alright amaz appreci are awesom brilliant bye cheer cool cours cya
day definit do evening exact excel fab fantast fine get gm gn go good goodby goodnight gotcha
great greet hah haha hahaha heh hehe hello hey heya hi hiya hm hmm hold how howdi inde k kk later
like lmao lmfao lol love make minut moment morn nah neat nice night no nope note np oh ok okay
okey omg ooh oop perfect pleas pleasur pls plz problem right rofl sec second see sens soon sorri
sound sup super sure sweet ta terrif thank thx time today total true ttyl ty tysm uh um
understand up wait welcom what whoa whoop wonder worri wow xd ya yea yeah yep yes yo yup
""".split())


def options(flags: dict | None = None) -> dict:
    """The recall settings: ``flags`` (given on the command line) over the plugin config's
    ``recall`` over DEFAULTS; a value of the wrong kind is ignored."""
    from . import paths

    found = dict(DEFAULTS)
    try:
        config = paths.plugin_config().get("recall")
    except Exception:  # noqa: BLE001 - an unreadable config: the defaults
        config = None
    for source in (config if isinstance(config, dict) else {}, flags or {}):
        for key, value in source.items():
            if value is None or key not in DEFAULTS:
                continue
            if key == "enabled":
                if isinstance(value, bool):
                    found[key] = value
            elif key == "minScore":
                if isinstance(value, (int, float)) and not isinstance(value, bool) \
                        and value >= 0:
                    found[key] = float(value)
            elif isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                found[key] = value
    return found


def match_unit(n: int) -> float:
    """The unit of ``minScore``: see :func:`zettelclaw.rank.match_unit`."""
    from .rank import match_unit as unit

    return unit(n)


def is_filler(message: str) -> bool:
    """True when the message asks nothing of memory: no words once stop words are dropped,
    or only conversational filler."""
    from .rank import analyze, keep, words

    if all(word in _FILLER for word in words(message) if keep(word)):
        return True  # no stemming needed ("thanks!", "ok"; also a message of stop words only)
    terms = analyze(message)
    return not terms or set(terms) <= FILLER_STEMS


def _flat(text, limit: int) -> str:
    from .display import printable

    text = printable(" ".join(str(text or "").split()))
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


_UNKNOWN = object()  # the handoff block is not known yet: read it


def _in_prompt(agents, default: str, found=_UNKNOWN, person: str | None = None
               ) -> tuple[set[str], str]:
    """Ids of the entries the handoff block shows (``found``: the handoff already read, or
    None for none), and MEMORY.md's generated block (one line, whitespace collapsed; "" when
    there is none)."""
    from . import paths

    ids: set[str] = set()
    if found is _UNKNOWN:
        from .handoff import last_handoff

        found = last_handoff(paths.log_file(), agents, default, person)
    if found is not None:
        for entry in [found["handoff"], *found["openTasks"], *found["decisions"]]:
            ids.add(entry["id"])
    briefing = ""
    agent = default if agents is None or len(agents) != 1 else next(iter(agents))
    from .errors import ZettelclawError
    from .fsutil import read_bytes

    try:  # a symlink or a FIFO is refused, not followed or waited on (every turn)
        workspace = paths.agent_workspace(agent)
        raw = read_bytes(os.path.join(workspace, paths.MEMORY_FILE), limit=1 << 20) or b""
        text = raw.decode("utf-8", errors="surrogateescape")
    except (OSError, ValueError, ZettelclawError):
        text = ""
    if text:
        from .markers import generated_block

        block = generated_block(text)
        if block:
            briefing = " ".join(block.split())
    return ids, briefing


def _in_briefing(entry: dict, briefing: str) -> bool:
    if not briefing:
        return False
    content = " ".join(str(entry.get("content") or "").split())
    # the briefing cuts an item at 160 characters and escapes "<!--": compare the start
    head = content.replace("<!--", "&lt;!--")[:120]
    return bool(head) and head in briefing


def line(entry: dict) -> str:
    """One entry as the block shows it: type, subject, date, content."""
    parts = [f"- [{_flat(entry.get('type'), 20)}"]
    if entry.get("subject"):
        parts.append(f" {_flat(entry['subject'], 60)}")
    date = str(entry.get("timestamp") or "")[:10]
    if date:
        parts.append(f" {_flat(date, 10)}")
    return "".join(parts) + f"] {_flat(entry.get('content'), _ITEM_CHARS)}"


def recall(message: str, agents=None, flags: dict | None = None, handoff=_UNKNOWN,
           person: str | None = None, scores: dict | None = None) -> list[dict]:
    """The entries to inject for ``message``, best first, as stored (no score); [] when
    nothing qualifies. ``agents``: the agent scope (``--agent``); ``handoff``: the handoff
    block's entries (:func:`zettelclaw.handoff.last_handoff`) when the caller has read them;
    ``person``: whose session it is (None: the owner's), whose trusted entries alone come
    (:func:`zettelclaw.people.injectable`); ``scores``: filled with each chosen entry's
    score by id (for its receipt)."""
    from .rank import MAX_QUERY_CHARS

    if not isinstance(message, str):
        return []
    from .people import NOBODY, UNKNOWN

    if person in (NOBODY, UNKNOWN):  # a session not known to be anyone's: nothing
        return []
    from .private import strip_private

    message = strip_private(message)[:MAX_QUERY_CHARS]  # private words neither rank nor show
    if is_filler(message):  # first: small talk costs no config, no query, no scan
        return []
    opts = options(flags)
    if not opts["enabled"] or opts["maxEntries"] < 1:
        return []
    from . import paths
    from .rank import SMALL_LOG, rank

    scope = paths.agent_scope(agents)
    default = paths.default_agent()
    query = Question(message, scope, default, person=person, inject=True)
    # a small log is read in Python (starting rg would cost more than reading it); a large
    # one's scan is planned from a sample: no stream of the matches of words too common to
    # qualify alone, no scan at all when no entry can reach minScore
    found = rank(query, include_memory=False, python_below=SMALL_LOG,
                 min_units=opts["minScore"], relative=RELATIVE, exact_limit=EXACT)
    ranked = [r for r in found if r.get("source") != "memory"]
    if not ranked:
        return []
    unit = match_unit(found.n)
    best = ranked[0]["score"] / unit
    if best < opts["minScore"]:
        return []
    floor = max(opts["minScore"], best * RELATIVE)
    shown, briefing = _in_prompt(scope, default, handoff, person)
    chosen: list[dict] = []
    seen: set[str] = set()  # the same words twice (a fact restated) are shown once
    used = len(TITLE) + 1
    for item in ranked:
        if item["score"] / unit < floor or len(chosen) >= opts["maxEntries"]:
            break
        if item["id"] in shown or _in_briefing(item, briefing):
            continue
        same = " ".join(str(item.get("content") or "").split()).casefold()
        if same in seen:
            continue
        cost = len(line(item)) + 1
        if used + cost > opts["maxChars"]:
            continue
        used += cost
        seen.add(same)
        entry = dict(item)
        score = entry.pop("score", None)
        if scores is not None:
            scores[entry.get("id")] = score
        chosen.append(entry)
    return chosen


class Question:
    """What recall (and ``search WORDS`` without filters) asks the ranker: a
    :class:`zettelclaw.query.Query` with words, an agent scope, a limit and nothing else,
    without that module's imports (dataclasses, datetime, pathlib, re)."""

    type = subject = status = session = since = until = None

    def __init__(self, text: str, agents: frozenset[str] | None, default_agent: str,
                 limit: int = _DEPTH, include_replaced: bool = False,
                 person: str | None = None, inject: bool = False):
        self.text, self.agents, self.default_agent = text, agents, default_agent
        self.limit, self.include_replaced = limit, include_replaced
        # whose session asks (None: the terminal, every person's); ``inject``: for the
        # prompt, where only that person's trusted entries go (zettelclaw.people)
        self.person, self.inject = person, inject
        self._allowed = None
        if inject or person is not None:
            from .people import injectable, sees

            self._allowed = injectable if inject else sees

    def structural(self) -> Question:
        return self  # its words are scored, never filtered on

    def needles(self) -> list[bytes]:
        """What every line in scope holds (as Query.needles: one agent, not the default)."""
        if self.agents is not None and len(self.agents) == 1 \
                and self.default_agent not in self.agents:
            return [b'"agent":"' + next(iter(self.agents)).encode() + b'"']
        return []

    def matches(self, entry: dict) -> bool:
        """In the agent scope (as Query.in_scope: no ``agent`` is the default agent's), and
        the asking person's (to inject: the trusted ones alone)."""
        if self._allowed is not None and not self._allowed(self.person, entry):
            return False
        if self.agents is None:
            return True
        agent = entry.get("agent")
        return (agent if isinstance(agent, str) and agent else self.default_agent) in self.agents


def format_block(entries: list[dict]) -> str:
    return "\n".join([TITLE, *(line(entry) for entry in entries)])


def print_recall(message: str, as_json: bool = False, agent=None,
                 flags: dict | None = None, with_handoff: bool = False,
                 session_key: str | None = None, turn=None) -> None:
    """What ``zettelclaw recall`` prints: the block (text), the entries as JSON Lines
    (``--json``), nothing when nothing qualifies.

    ``with_handoff`` (``--handoff``, the plugin's one process per prompt): first what
    ``zettelclaw handoff`` prints (as text: its block, if any, then an empty line, which the
    handoff never contains; as JSON: its object, or ``null``), flushed before recall starts, so
    a caller that gives up waiting still has a complete handoff; then the recall output.

    ``session_key`` (``--session-key``, the plugin's): whose session it is
    (:func:`zettelclaw.people.person_of_key`); without one, the owner's.

    ``turn`` (``--turn``, the plugin's: a :class:`zettelclaw.receipts.Turn`): once printed,
    what was put before the model is receipted (:mod:`zettelclaw.receipts`)."""
    from .people import person_of_key

    person = person_of_key(session_key)
    found = _UNKNOWN
    if with_handoff:
        from . import paths
        from .handoff import format_handoff, last_handoff

        found = last_handoff(paths.log_file(), paths.agent_scope(agent), paths.default_agent(),
                             person)
        if as_json:
            from .jsonlight import dumps

            head = dumps(found) + "\n"
        else:
            head = (format_handoff(found) + "\n" if found is not None else "") + "\n"
        sys.stdout.write(head)
        sys.stdout.flush()
    scores: dict = {}
    entries = recall(message, agent, flags, found, person, scores)
    if entries:
        if as_json:
            from .jsonlight import write_lines

            write_lines(entries)  # the bytes `search` prints
        else:
            sys.stdout.write(format_block(entries) + "\n")
            sys.stdout.flush()
    if turn is not None:
        from .receipts import RECALL, handoff_items, matched, record

        items = handoff_items(found) if with_handoff and found is not _UNKNOWN else []
        items += [{"id": e.get("id"), "why": RECALL, "words": matched(message, e),
                   "score": scores.get(e.get("id"))} for e in entries]
        record(turn, "recall", items, agents=agent, session_key=session_key, person=person)
