"""Ranked recall: BM25F over the log and the workspace's memory files, with no index file.

The run's only state stays ``log.jsonl``, ``subjects.json`` and ``state.json``, so every ranked
query computes its statistics from the log in one streaming pass:

1. **Analyse the question**: lowercase, split on word characters, drop stop words, Snowball
   English stems (cached). Each stem gets a *prefix* that every word with that stem starts
   with (the stem minus a final ``e``/``i``: ``family`` -> ``famili`` -> ``famil``).
2. **Scan** the log once for word-starts matching the prefixes. With ripgrep on PATH (or next
   to the Python that runs us) ``rg -o`` does it and a second ``rg`` collects the
   ``"replaces"`` ids in parallel; Python parses rg's matches as they stream in (recall reads
   a log under 4 MB in Python: less than starting rg costs). Without rg a
   pure-Python scan does the same with ``bytes.find`` over 8 MB blocks. Either way Python sees
   only the matched words, stems each distinct one once and keeps, per candidate line, the
   counts of the words that really have a query stem; a term's document frequency is the
   number of candidate lines that contain it. N (lines) and the average field lengths come
   from the log itself when it is small (every line counted and parsed) and, above 4 MB, from
   12 windows of 16 KB spread over the file (``pread``): no second full read.
3. **Score** candidates best-first by BM25 over the term counts the scan saw (field and length
   unknown); ``(k1 + 1)`` times that bounds a line's exact score, so only lines that can still
   beat the current top M are read back (``mmap``), parsed, checked against the structured
   filters and the replacement map, and scored exactly with BM25F over content, detail and
   subject; at most ``EXACT_LIMIT`` of them (a shortlist on a large log, everything on a small
   one). Memory use is bounded by the number of candidate lines, never by the log.
4. **Re-rank** the top M with cheap signals that plain BM25 misses: query terms adjacent in an
   entry as in the question (bigram proximity); entries whose subject the question names
   (``caroline``, ``queue-retries``: every stem of the slug among the query's); entries written
   in the month or year the question names (``in June``, ``May 2023``, against the entry's
   timestamp), twice as much within a week of a day it names (``on 7 July``); and, last,
   each entry's session context: a share of the best score in its session, as passage
   retrieval adds the document's score to a passage's (the entries of one conversation
   explain each other).

MEMORY.md and ``memory/*.md`` are cut into chunks of 10-20 lines (read while rg works; not
MEMORY.md's generated briefing block, which repeats the log) and scored against the same
collection statistics (log lines plus chunks), so their scores share one scale with entries.

``zettelclaw search`` with JSON output comes here through :mod:`zettelclaw.hot`, which starts rg
before importing anything else the command needs (Typer, Rich and pydantic not at all).
"""

from __future__ import annotations

import math
import os
import re
import sys
from collections.abc import Iterable

from .clock import sort_key
from .log import is_entry, parse_line
from .ripgrep import ripgrep

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

# heavier modules (orjson, subprocess, threading, mmap, heapq, pathlib, dataclasses) are
# imported where they are used: `search` starts rg before it pays for them (see zettelclaw.hot)

# -- parameters -------------------------------------------------------------------------------

K1 = 1.2
FIELDS = ("content", "detail", "subject")
# weight and length normalisation per field (BM25F): content is the entry; detail is
# background, worth less per word; subject is a slug naming the project or person, short and
# precise, so a query word that is the subject counts more and its length does not matter.
WEIGHTS = {"content": 1.0, "detail": 0.6, "subject": 1.5}
NORMS = {"content": 0.75, "detail": 0.75, "subject": 0.0}
DEFAULT_LIMIT = 20
# a query is a question or a few words, not a document: a longer one is refused (a 120 KB query
# took 82 s on a 100k-entry log), and only its first MAX_QUERY_TERMS distinct stems are scored
MAX_QUERY_CHARS = 1000
MAX_QUERY_TERMS = 64
RERANK_DEPTH = 100           # how many BM25 candidates the second stage looks at
PROXIMITY_WEIGHT = 0.25      # share of the two terms' idf earned when they are adjacent
SUBJECT_BOOST = 0.5          # an entry about the subject the question names: score * (1 + this)
WHEN_BOOST = 0.5             # an entry written in the month/year the question names: + this * best
SESSION_WEIGHT = 0.4         # an entry's session context: + this * the best score in its session
MEMORY_CHUNK_MIN, MEMORY_CHUNK_MAX = 10, 20
SAMPLE_LINES_PER_BLOCK = 128
SMALL_LOG = 4 << 20          # below this every line is sampled and counted
SAMPLE_WINDOWS, SAMPLE_WINDOW = 12, 16 << 10  # above it: N and lengths from spread windows
EXACT_LIMIT = 500            # at most this many candidates are read back and scored exactly

# Snowball's English stop word list, plus contraction remnants.
STOP_WORDS = frozenset("""
a about above after again against all am an and any are aren't as at be because been before
being below between both but by can can't cannot could couldn't did didn't do does doesn't
doing don't down during each few for from further had hadn't has hasn't have haven't having he
he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if
in into is isn't it it's its itself let's me more most mustn't my myself no nor not of off on
once only or other ought our ours ourselves out over own same shan't she she'd she'll she's
should shouldn't so some such than that that's the their theirs them themselves then there
there's these they they'd they'll they're they've this those through to too under until up
very was wasn't we we'd we'll we're we've were weren't what what's when when's where where's
which while who who's whom why why's will with won't would wouldn't you you'd you'll you're
you've your yours yourself yourselves s t d ll m re ve
""".split())

# English irregular verbs: base form, then past and participle forms. Stemming cannot tie
# "went" to "go" or "bought" to "buy"; questions ask "when did X go" of memories that say "X
# went". Forms that are as often another word ("left", "lay", "ground", "fell", "rose",
# "wound", "bound", "light", "lead", "bit") and forms equal to the base are left out.
IRREGULAR = """
arise arose arisen|awake awoke awoken|bear bore borne|beat beaten|become became|begin began
begun|bend bent|bite bitten|bleed bled|blow blew blown|break broke broken|breed
bred|bring brought|build built|burn burnt|buy bought|catch caught|choose chose chosen|cling
clung|come came|find found|creep crept|deal dealt|dig dug|draw drew drawn|dream dreamt|drink drank
drunk|drive drove driven|eat ate eaten|feed fed|feel felt|fight fought|flee fled|fly flew
flown|forbid forbade forbidden|forget forgot forgotten|forgive forgave forgiven|freeze froze
frozen|get got gotten|give gave given|go went gone|grow grew grown|hang hung|hear heard|hide
hid hidden|hold held|keep kept|kneel knelt|know knew known|lean leant|leap leapt|learn
learnt|lend lent|lose lost|make made|mean meant|meet met|pay paid|ride rode ridden|ring rang
rung|rise risen|run ran|say said|see saw seen|seek sought|sell sold|send sent|shake shook
shaken|shine shone|shoot shot|show shown|shrink shrank shrunk|sing sang sung|sink sank
sunk|sit sat|sleep slept|slide slid|speak spoke spoken|speed sped|spend spent|spin spun|spring
sprang sprung|stand stood|steal stole stolen|stick stuck|sting stung|stink stank stunk|strike
struck|strive strove striven|swear swore sworn|sweep swept|swim swam swum|swing swung|take
took taken|teach taught|tear tore torn|tell told|think thought|throw threw thrown|understand
understood|wake woke woken|wear wore worn|weave wove woven|weep wept|win won|write wrote
written
"""
LEMMAS: dict[str, str] = {}     # irregular form -> base form
FORMS: dict[str, list[str]] = {}  # base form -> its irregular forms
for _group in " ".join(IRREGULAR.split()).split("|"):
    _base, *_forms = _group.split()
    FORMS[_base] = _forms
    for _form in _forms:
        LEMMAS.setdefault(_form, _base)

_WORD = re.compile(r"\w+")
_stems: dict[str, str] = {}
_stemmer = None


def stem(word: str) -> str:
    """The Snowball English stem of a lowercase word, irregular verbs by their base form
    (``went`` -> ``go``; cached)."""
    global _stemmer
    cached = _stems.get(word)
    if cached is None:
        if _stemmer is None:
            _stemmer = _english_stemmer()
        cached = _stems[word] = _stemmer.stemWord(LEMMAS.get(word, word))
    return cached


def _english_stemmer():
    """Snowball's English stemmer without running ``snowballstemmer/__init__``, which imports
    the stemmers of every language (a third of a small search's start-up)."""
    if "snowballstemmer" not in sys.modules:
        # (found on sys.path by hand: importlib.util costs more than the stemmer)
        where = next((os.path.join(entry, "snowballstemmer") for entry in sys.path
                      if os.path.isfile(os.path.join(entry or ".", "snowballstemmer",
                                                     "english_stemmer.py"))), None)
        if where is not None:
            package = type(sys)("snowballstemmer")  # bare package: only its __path__
            package.__path__ = [where]
            sys.modules["snowballstemmer"] = package
            try:
                from snowballstemmer.english_stemmer import EnglishStemmer
            finally:
                # a later ``import snowballstemmer`` runs the real package
                if sys.modules.get("snowballstemmer") is package:
                    del sys.modules["snowballstemmer"]
            return EnglishStemmer()
    from snowballstemmer.english_stemmer import EnglishStemmer

    return EnglishStemmer()


def keep(word: str) -> bool:
    return word not in STOP_WORDS and (len(word) > 1 or word.isdigit())


def words(text: str) -> list[str]:
    """Lowercase word tokens of ``text`` (stop words included: positions and lengths)."""
    return _WORD.findall(text.lower())


def terms(text: str) -> list[str]:
    """The stems BM25 counts in ``text``, in order, stop words dropped."""
    return [stem(w) for w in words(text) if keep(w)]


# the frame of a question, not its topic: "what kind of music" asks about music
_QUESTION_FRAME = re.compile(r"\b(?:what|which)\s+(?:kinds?|types?|sorts?)\s+of\b",
                             re.IGNORECASE)


def analyze(text: str | None) -> list[str]:
    """The distinct query stems of ``text``, in order of first appearance (``what kind of``
    and the like dropped), at most the first MAX_QUERY_TERMS (64) of them."""
    return list(dict.fromkeys(terms(_QUESTION_FRAME.sub(" ", text or ""))))[:MAX_QUERY_TERMS]


def prefix(term: str) -> str:
    """A string every regular word stemming to ``term`` starts with (``famili`` -> ``famil``)."""
    cut = term
    if len(cut) > 3 and cut.endswith("e"):
        cut = cut[:-1]
    if len(cut) > 3 and cut.endswith("i"):
        cut = cut[:-1]
    return cut


def prefixes_of(query_terms: Iterable[str]) -> list[str]:
    """The word-starts a scan looks for: each term's prefix, and the irregular forms of a verb
    term (``go`` -> ``go``, ``went``)."""
    out = set()
    for t in query_terms:
        out.add(prefix(t))
        for form in FORMS.get(t, ()):
            if stem(form) == t:
                out.add(form)
    return sorted(out)


def idf(n: int, df: int) -> float:
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


# -- collection statistics --------------------------------------------------------------------

class Stats:
    """What BM25 needs to know about the whole collection."""

    def __init__(self, n: int = 0, df=None, avg=None, idf=None):
        self.n = n
        self.df: dict[str, int] = df if df is not None else {}
        self.avg: dict[str, float] = avg if avg is not None else {}
        self.idf: dict[str, float] = idf if idf is not None else {}

    def finish(self, query_terms: Iterable[str]) -> None:
        for t in query_terms:
            df = self.df.get(t, 0)
            self.idf[t] = idf(self.n, df) if df else 0.0

    def with_avg(self, avg: dict[str, float]) -> Stats:
        return Stats(self.n, self.df, avg, self.idf)


class Scan:
    """What one pass over the log found (plain classes here: no dataclasses import, which
    costs more than a small search)."""

    def __init__(self, engine: str = "python"):
        self.engine = engine
        self.lines = 0
        self.estimated = False  # lines estimated from a sample (large log, ripgrep scan)
        # term -> line key -> occurrences; a line's key is its number (rg) or its start offset
        self.tf: dict[str, dict] = {}
        self.offsets: dict = {}  # line key -> a byte offset inside the line
        # where ids are named by "replaces" (resolve.StreamingResolution): filled by the same
        # pass as the terms, from Python's block scan or from ripgrep's output
        self.resolution = None
        self.sample_lengths: dict[str, list[int]] = {f: [] for f in FIELDS}
        # a large log's sample: entries seen, and per query term how many of them hold it
        # (counted when the scan is planned from the sample: see plan_stream)
        self.sampled = 0
        self.sample_df: dict[str, int] | None = None
        # terms left out of the stream (too common to pick candidates): their estimated df
        self.df_estimate: dict[str, int] = {}
        self.prefixes: tuple[str, ...] = ()


def field_text(entry: dict, name: str) -> str:
    value = entry.get(name)
    return value if isinstance(value, str) else ""


# below this a log's lines are parsed by the standard library's C scanner: importing orjson (and
# the dataclasses, uuid and json it imports) costs more than it saves on so few lines
LIGHT_JSON_BELOW = 512 << 10


def json_loads(size: int):
    """``loads(bytes) -> object`` for a log of ``size`` bytes; it raises ValueError for a line
    that is not JSON."""
    if size >= LIGHT_JSON_BELOW or "orjson" in sys.modules:
        import orjson

        return orjson.loads
    from .handoff import _loads

    def loads(line: bytes):
        try:
            return _loads(line)
        except (StopIteration, RecursionError) as exc:
            raise ValueError(str(exc)) from None

    return loads


def entry_parser(loads):
    """``parse(bytes) -> entry or None`` with ``loads`` (see json_loads)."""

    def parse(line: bytes) -> dict | None:
        try:
            obj = loads(line)
        except ValueError:
            return parse_line(line)  # a byte-order mark before the first line
        return obj if is_entry(obj) else None

    return parse


def _sample(block: bytes, scan: Scan, every_line: bool, loads=None) -> None:
    loads = loads or json_loads(len(block))
    lengths = scan.sample_lengths
    lines = block.split(b"\n") if every_line else block.split(b"\n", SAMPLE_LINES_PER_BLOCK)[:-1]
    for line in lines:
        if not line:
            continue
        try:
            obj = loads(line)
        except ValueError:
            continue
        if is_entry(obj):
            counts = scan.sample_df
            found = set() if counts is not None else None
            for name in FIELDS:
                tokens = words(field_text(obj, name))
                lengths[name].append(len(tokens))
                if found is not None:
                    found.update(stem(w) for w in tokens if w.startswith(scan.prefixes))
            if found is not None:
                scan.sampled += 1
                for t in found & counts.keys():
                    counts[t] += 1


def _estimate(path: Path, size: int, scan: Scan) -> None:
    """N and the length sample of a large log from windows spread over the file (``pread``):
    N = size * lines / bytes of the whole lines seen. Reads 192 KB however large the log."""
    from .fsutil import open_read

    lines = seen = 0
    with open_read(path) as fh:
        fd = fh.fileno()
        step = max(size // SAMPLE_WINDOWS, 1)
        for i in range(SAMPLE_WINDOWS):
            start = i * step
            window = os.pread(fd, SAMPLE_WINDOW, start)
            if not window:
                break
            first = 0 if start == 0 else window.find(b"\n") + 1
            last = window.rfind(b"\n") + 1
            if first <= 0 and start or last <= first:
                continue
            body = window[first:last]
            lines += body.count(b"\n")
            seen += len(body)
            _sample(body, scan, True)
    scan.lines = round(size * lines / seen) if seen else 0
    scan.estimated = True


def _blocks(path: Path):
    """``(base offset, block)`` pairs of whole lines (the last may lack its newline)."""
    if os.path.getsize(path) <= SMALL_LOG:  # one read (Log would import pathlib for it)
        from .fsutil import open_read

        with open_read(path) as fh:
            block = fh.read()
        if block:
            yield 0, block
        return
    from .log import Log

    for base, block, end in Log(path, warn=False).blocks():
        yield base, block[:end] if end < len(block) else block


def _count_lines(block: bytes) -> int:
    lines = block.count(b"\n")
    return lines + (1 if block and not block.endswith(b"\n") else 0)


_WORD_TAIL = re.compile(rb"[\w\x80-\xff]*")
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_RG_TERM = re.compile(rb"^(\d+):(\d+):(.*)$", re.MULTILINE)


def _add_match(scan: Scan, key: int, offset: int, word: str, wanted: set[str]) -> None:
    term = stem(word.lower())
    if term not in wanted:
        return
    lines = scan.tf.setdefault(term, {})
    lines[key] = lines.get(key, 0) + 1
    scan.offsets.setdefault(key, offset)


def scan_python(path: Path, query_terms: list[str]) -> Scan:
    """The pure-Python scan: ``bytes.find`` for each prefix over lowercased 8 MB blocks."""
    from .resolve import REPLACES, StreamingResolution

    scan = Scan(engine="python")
    named_at: dict[str, list[int]] = {}
    wanted = set(query_terms)
    needles: set[bytes] = set()
    for p in prefixes_of(query_terms):
        for variant in {p, p.capitalize(), p.upper()}:  # bytes.lower() folds ASCII only
            needles.add(variant.encode().lower())
    size = os.path.getsize(path)
    small, loads = size <= SMALL_LOG, json_loads(size)
    for base, block in _blocks(path):
        scan.lines += _count_lines(block)
        _sample(block, scan, small, loads)
        low = block.lower()
        for needle in needles:
            i = low.find(needle)
            while i != -1:
                if i == 0 or low[i - 1] not in _WORD_BYTES and low[i - 1] < 0x80:
                    end = _WORD_TAIL.match(low, i).end()
                    word = low[i:end].decode("utf-8", "replace")
                    start = low.rfind(b"\n", 0, i) + 1
                    _add_match(scan, base + start, base + i, word, wanted)
                    i = end
                i = low.find(needle, i + 1)
        for match in REPLACES.finditer(block):  # compact, or written by hand with spaces
            target = match.group(1).decode("utf-8", "replace")
            named_at.setdefault(target, []).append(base + match.start())
    scan.resolution = StreamingResolution(path, named_at, parse=entry_parser(loads))
    return scan


class Started:
    """The two rg processes of a scan, started ahead of the rest of the work."""

    def __init__(self, path, query_terms: list[str], procs: dict):
        self.path, self.terms, self.procs = str(path), list(query_terms), procs

    def kill(self) -> None:
        for proc in self.procs.values():
            proc.kill()
            proc.stdout.close()
            proc.wait()
        self.procs = {}


def start_scan(path, query_terms: list[str]) -> Started | None:
    """Start the rg processes that scan ``path`` for ``query_terms`` (None without rg, terms or
    log). :func:`rank` given it picks their output up; what the caller does between the two
    runs while rg works."""
    rg = ripgrep()
    from .fsutil import check_regular

    if not rg or not query_terms or not check_regular(path):
        return None
    procs = _spawn(rg, path, query_terms)
    return Started(path, query_terms, procs) if procs else None


def _spawn(rg: str, path, query_terms: list[str]) -> dict | None:
    import subprocess

    from .ripgrep import REPLACES

    prefixes = prefixes_of(query_terms)
    pattern = r"\b(?:" + "|".join(re.escape(p) for p in prefixes) + r")\w*"
    common = [rg, "--no-config", "--text", "--only-matching", "--byte-offset", "--no-filename",
              "--color", "never"]
    # two processes, in parallel: one pass for both is slower (the case-folded "replaces"
    # costs rg its literal search) and leaves Python more rows to tell apart
    procs = {}
    try:
        procs["terms"] = subprocess.Popen(
            common + ["--line-number", "--ignore-case", "-e", pattern, "--", str(path)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        procs["replaces"] = subprocess.Popen(
            common + ["--no-line-number", "-e", REPLACES, "--", str(path)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except OSError:
        for proc in procs.values():
            proc.kill()
            proc.wait()
        return None
    return procs


def scan_ripgrep(rg: str, path, query_terms: list[str], meanwhile=None,
                 started: Started | None = None, plan=None) -> Scan | None:
    """The same scan with two ``rg`` processes (``started`` ones, or new); None when rg fails
    (the caller falls back). ``meanwhile`` (a callable) runs once rg has started.

    ``plan`` (recall's): on a large log the sample is taken before rg starts, with each query
    term's count in it, and ``plan(scan)`` says which terms rg streams (see plan_stream);
    none: rg does not run at all (nothing the message asks can qualify)."""
    import threading

    scan = Scan(engine="ripgrep")
    size = os.path.getsize(path)
    planned = started is None and plan is not None and size > SMALL_LOG
    if planned:
        scan.sample_df = dict.fromkeys(query_terms, 0)
        scan.prefixes = tuple(prefixes_of(query_terms))
        _estimate(path, size, scan)
        streamed = plan(scan)
        scan.df_estimate = {t: round(scan.sample_df[t] * scan.lines / max(scan.sampled, 1))
                            for t in query_terms if t not in streamed}
        if not streamed:
            if meanwhile is not None:
                meanwhile()
            return scan
        query_terms = streamed
    procs = started.procs if started is not None else _spawn(rg, path, query_terms)
    if not procs:
        return None
    wanted = set(query_terms)
    out: dict[str, bytes] = {}

    def drain():
        out["replaces"] = procs["replaces"].stdout.read()

    reader = threading.Thread(target=drain)
    reader.start()
    if meanwhile is not None:
        meanwhile()
    # meanwhile, in this thread: N and the length sample (exact for a small log, estimated
    # from spread windows for a large one: no second full read of the file), then rg's matches
    # parsed as they stream in, while rg goes on on the other core
    if planned:
        pass  # sampled before rg started
    elif size <= SMALL_LOG:
        loads = json_loads(size)
        for _, block in _blocks(path):
            scan.lines += _count_lines(block)
            _sample(block, scan, True, loads)
    else:
        _estimate(path, size, scan)
    lines_of: dict[bytes, dict | None] = {}  # matched word -> its stem's line counts, or None
    tf: dict[str, dict[bytes, int]] = {}
    offsets = scan.offsets  # keys and offsets stay bytes until a line is read back
    fd = procs["terms"].stdout.fileno()
    findall, get_lines = _RG_TERM.findall, lines_of.get
    rest = b""
    while True:
        chunk = os.read(fd, 1 << 18)
        data = rest + chunk
        cut = data.rfind(b"\n") + 1 if chunk else len(data)
        rest = data[cut:]
        for lineno, offset, word in findall(data, 0, cut):
            lines = get_lines(word, offsets)  # offsets: a sentinel for "not seen yet"
            if lines is offsets:
                term = stem(word.decode("utf-8", "replace").lower())
                lines = lines_of[word] = tf.setdefault(term, {}) if term in wanted else None
            if lines is not None:
                lines[lineno] = lines.get(lineno, 0) + 1
                offsets[lineno] = offset
        if not chunk:
            break
    scan.tf = tf
    reader.join()
    for proc in procs.values():
        proc.stdout.close()
        if proc.wait() not in (0, 1):  # 1: nothing matched
            return None
    from .resolve import StreamingResolution
    from .ripgrep import Named

    scan.resolution = StreamingResolution(path, Named(out["replaces"]))
    return scan


def scan_log(path, query_terms: list[str], meanwhile=None, started: Started | None = None,
             python_below: int = 0, plan=None) -> Scan:
    """Scan the log (ripgrep, else Python); ``meanwhile`` runs exactly once, while rg works.
    ``started``: rg processes from :func:`start_scan` for this path and these terms. A log of
    at most ``python_below`` bytes is read in Python: faster than starting rg (and importing
    what it takes) when every line is read and parsed anyway (see SMALL_LOG)."""
    if started is not None and (started.path != str(path) or started.terms != query_terms):
        started.kill()
        started = None
    if started is None and python_below:
        try:
            small = os.stat(path).st_size <= python_below
        except OSError:
            small = False
        if small:
            return _scan_here(path, query_terms, meanwhile)
    rg = started.procs["terms"].args[0] if started is not None else ripgrep()
    pending = [meanwhile] if meanwhile is not None else []

    def once():
        while pending:
            pending.pop()()

    try:
        from .fsutil import check_regular

        exists = check_regular(path)  # a symlink or FIFO is refused before rg reads it
        if started is not None or rg and query_terms and exists:
            result = scan_ripgrep(rg, path, query_terms, once, started, plan)
            if result is not None:
                return result
        return scan_python(path, query_terms) if exists else Scan()
    except FileNotFoundError:
        return Scan()
    finally:
        once()


def _scan_here(path, query_terms: list[str], meanwhile=None) -> Scan:
    """The pure-Python scan, ``meanwhile`` run first."""
    from .fsutil import check_regular

    if meanwhile is not None:
        meanwhile()
    try:
        return scan_python(path, query_terms) if check_regular(path) else Scan()
    except FileNotFoundError:
        return Scan()


# -- scoring ----------------------------------------------------------------------------------

def field_counts(entry: dict, wanted: set[str], prefixes: tuple[str, ...]
                 ) -> tuple[dict[str, dict[str, int]], dict[str, int]]:
    """Per field: the counts of the query stems it contains, and its length in words. Only
    words that start with a query prefix are stemmed (the rest cannot have a query stem)."""
    counts, lengths = {}, {}
    for name in FIELDS:
        tokens = _WORD.findall(field_text(entry, name).lower())
        lengths[name] = len(tokens)
        found: dict[str, int] = {}
        for w in tokens:
            if w.startswith(prefixes) and keep(w):
                t = stem(w)
                if t in wanted:
                    found[t] = found.get(t, 0) + 1
        counts[name] = found
    return counts, lengths


def bm25f(counts: dict[str, dict[str, int]], lengths: dict[str, int], stats: Stats,
          query_terms: list[str], explain: dict | None = None) -> float:
    """BM25F: per-field weighted, length-normalised term frequency, saturated once.
    ``counts``: per field, term -> occurrences."""
    score = 0.0
    for t in query_terms:
        weight = stats.idf.get(t, 0.0)
        if not weight:
            continue
        tf = 0.0
        per_field = {}
        for name, counter in counts.items():
            raw = counter.get(t, 0)
            if not raw:
                continue
            avg = stats.avg.get(name) or 1.0
            norm = 1.0 - NORMS.get(name, 0.75) + NORMS.get(name, 0.75) * lengths[name] / avg
            tf += WEIGHTS.get(name, 1.0) * raw / norm
            per_field[name] = raw
        if tf:
            part = weight * tf * (K1 + 1) / (tf + K1)
            score += part
            if explain is not None:
                explain[t] = {"idf": round(weight, 4), "tf": per_field, "score": round(part, 4)}
    return score


def _counter(tokens: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for t in tokens:
        out[t] = out.get(t, 0) + 1
    return out


def proximity(text_words: list[str], query_terms: list[str], stats: Stats) -> tuple[float, list]:
    """Bonus for query terms that stand next to each other (stop words skipped) as in the
    question: ``support group`` beats an entry that says support here and group there."""
    pairs = set(zip(query_terms, query_terms[1:], strict=False))
    if not pairs:
        return 0.0, []
    prefixes = tuple(prefixes_of(query_terms))
    stems = [stem(w) if w.startswith(prefixes) else "" for w in text_words if keep(w)]
    found = {pair for pair in zip(stems, stems[1:], strict=False) if pair in pairs}
    bonus = sum(PROXIMITY_WEIGHT * (stats.idf.get(a, 0) + stats.idf.get(b, 0)) for a, b in found)
    return bonus, sorted(f"{a} {b}" for a, b in found)


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")
_MONTH_ABBR = {m[:3]: i + 1 for i, m in enumerate(_MONTHS)} | {"sept": 9}
_PATTERNS = {
    "month": r"\b(?:(in|of|since|during|early|mid|late|last|next|this)\s+)?"
             r"(january|february|march|april|may|june|july|august|september|october|november"
             r"|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\b\.?"
             r"(\s*,?\s*(?:\d{1,4}))?",
    "year": r"\b(19[5-9]\d|20\d\d)\b",
}
_MONTH_NAMES = (r"(january|february|march|april|may|june|july|august|september|october"
                r"|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)")
_PATTERNS["day"] = (
    r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH_NAMES + r"\b\.?,?(?:\s*(\d{4})\b)?"
    r"|\b" + _MONTH_NAMES + r"\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s*(\d{4})\b)?"
    r"|\b(\d{4})-(\d{2})-(\d{2})\b")
_compiled: dict = {}


def _regex(name: str):
    """One of _PATTERNS, compiled on first use (case-insensitive)."""
    found = _compiled.get(name)
    if found is None:
        found = _compiled[name] = re.compile(_PATTERNS[name], re.IGNORECASE)
    return found


DAY_WINDOW = 7               # a named day matches entries written up to a week either side


def _may_name_a_time(text: str | None) -> bool:
    """Whether ``text`` may name a month, year or day (the expressions above are compiled,
    at some cost, only then): a digit or a month's first three letters."""
    low = (text or "").lower()
    return any(c.isdigit() for c in low) or any(m in low for m in _MONTH_ABBR)


def when_named(text: str | None) -> tuple[frozenset[int], frozenset[int]]:
    """The calendar months and years a question names: ``in June`` -> ({6}, {}),
    ``May 2023`` -> ({5}, {2023}). ``may``/``march`` (verbs too) and 3-letter abbreviations
    count only with a number or after ``in``, ``since``, ``during``, ``early``, ``mid``,
    ``late``."""
    months, years = set(), set()
    if not _may_name_a_time(text):
        return frozenset(), frozenset()
    for m in _regex("month").finditer(text or ""):
        lead, name, number = m.group(1), m.group(2), m.group(3)
        word = name.lower()
        ambiguous = word in ("may", "march") or len(word) <= 4 and word not in ("june", "july")
        firm = number or lead and lead.lower() in ("in", "since", "during", "early", "mid", "late")
        if ambiguous and not firm:
            continue
        months.add(_MONTH_ABBR[word[:4] if word == "sept" else word[:3]])
    years.update(int(y) for y in _regex("year").findall(text or ""))
    return frozenset(months), frozenset(years)


def days_named(text: str | None) -> list[tuple[int | None, int, int]]:
    """The calendar days a question names, as (year or None, month, day): ``on 7 July, 2023``,
    ``July 7th``, ``2026-03-03``."""
    out = []
    if not _may_name_a_time(text):
        return out
    for m in _regex("day").finditer(text or ""):
        g = m.groups()
        if g[0]:
            day, name, year = g[0], g[1], g[2]
        elif g[3]:
            name, day, year = g[3], g[4], g[5]
        else:
            out.append((int(g[6]), int(g[7]), int(g[8])))
            continue
        word = name.lower()
        out.append((int(year) if year else None,
                     _MONTH_ABBR[word[:4] if word == "sept" else word[:3]], int(day)))
    return [d for d in out if 1 <= d[1] <= 12 and 1 <= d[2] <= 31]


def _near_day(entry: dict, days: list[tuple[int | None, int, int]]) -> bool:
    """Whether the entry was written within DAY_WINDOW days of a named day (a day named
    without a year: in the entry's year)."""
    from datetime import date

    stamp = entry.get("timestamp")
    try:
        written = date(int(stamp[:4]), int(stamp[5:7]), int(stamp[8:10]))
    except (TypeError, ValueError):
        return False
    for year, month, day in days:
        try:
            named = date(year or written.year, month, day)
        except ValueError:
            continue
        if abs((written - named).days) <= DAY_WINDOW:
            return True
    return False


def _written_in(entry: dict, months: frozenset[int], years: frozenset[int]) -> bool:
    stamp = entry.get("timestamp")
    if not isinstance(stamp, str) or len(stamp) < 7 or not stamp[:4].isdigit():
        return False
    try:
        year, month = int(stamp[:4]), int(stamp[5:7])
    except ValueError:
        return False
    return (not months or month in months) and (not years or year in years)


def subject_terms(slug: str) -> tuple[str, ...]:
    """The stems of a subject slug (``queue-retries`` -> ``('queue', 'retri')``)."""
    return tuple(terms(slug.replace("-", " ").replace("_", " ")))


# -- memory files -----------------------------------------------------------------------------

class Chunk:
    """A piece of a memory file: 1-based inclusive lines ``start``-``end``."""

    def __init__(self, path: str, start: int, end: int, text: str, tokens: list[str]):
        self.path, self.start, self.end, self.text, self.tokens = path, start, end, text, tokens


def chunk_lines(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) 1-based inclusive ranges of 10-20 lines, cut at headings or blank lines."""
    ranges = []
    start = 0
    for i, line in enumerate(lines):
        size = i - start
        boundary = not line.strip() or line.lstrip().startswith("#")
        if size >= MEMORY_CHUNK_MAX or (size >= MEMORY_CHUNK_MIN and boundary):
            ranges.append((start + 1, i))
            start = i
    if start < len(lines):
        ranges.append((start + 1, len(lines)))
    return ranges


def memory_chunks() -> list[Chunk]:
    from . import memoryfiles

    chunks = []
    for name, path in memoryfiles.memory_files():
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as fh:
                text = fh.read().decode("utf-8", errors="replace")
        except OSError:
            continue
        lines = text.splitlines()
        for start, end in _person_lines(name, text, lines):
            for first, last in chunk_lines(lines[start:end]):
                first, last = first + start, last + start
                body = "\n".join(lines[first - 1:last])
                tokens = terms(body)
                if tokens:
                    chunks.append(Chunk(name, first, last, body, tokens))
    return chunks


def _person_lines(name: str, text: str, lines: list[str]) -> list[tuple[int, int]]:
    """The 0-based ``[start, end)`` runs of ``lines`` that search indexes: all of them, but in
    MEMORY.md not the generated briefing block, markers included (it is derived from the log,
    whose entries search finds themselves: indexed twice, they would push real notes down)."""
    if name != "MEMORY.md":
        return [(0, len(lines))]
    from .markers import generated_lines

    block = generated_lines(text)
    if block is None:  # no markers, or broken ones: nothing tells the block apart
        return [(0, len(lines))]
    return [(0, block[0]), (block[1] + 1, len(lines))]


def snippet(text: str, limit: int = 700) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit].rstrip() + "…"


# -- the query --------------------------------------------------------------------------------

def _structural(query):
    """The query without its words: rank scores words, the filters stay exact. (A query that
    has no filter of words, recall's, says so with ``structural()``.)"""
    own = getattr(query, "structural", None)
    if own is not None:
        return own()
    from dataclasses import replace

    return replace(query, text=None)


def has_filters(query) -> bool:
    return any(getattr(query, name) for name in
               ("type", "subject", "status", "session", "since", "until"))


# a term seen in fewer of a large log's sampled entries than this is never left out of the
# stream (its document frequency, estimated from so few, could be far off)
COMMON_MIN_SEEN = 5


def match_unit(n: int) -> float:
    """The score of one match of a word only one entry holds, in a log of ``n`` entries: the
    unit of recall's ``minScore``, so one threshold holds for a log of 50 entries and of a
    million (BM25's idf, hence every score, grows with the log)."""
    return max(idf(max(n, 1), 1), 1e-9)


def score_bound(idfs: dict[str, float], query_terms: list[str], held: set[str],
                relative: float) -> float:
    """The most a recalled entry holding only the terms ``held`` can score: each term
    saturates at idf * (k1 + 1) over all fields, proximity adds its share of each adjacent
    pair, the subject multiplies by 1 + SUBJECT_BOOST, and the session context (a share of the
    best score in the session, which may be another entry's) by what recall's ``relative``
    floor allows: to stay within ``relative`` of the best, an entry needs at least
    relative * (1 + w) - w of its session's best score itself (w = SESSION_WEIGHT)."""
    score = sum(idfs[t] * (K1 + 1) for t in held)
    score += sum(PROXIMITY_WEIGHT * (idfs[a] + idfs[b])
                 for a, b in zip(query_terms, query_terms[1:], strict=False)
                 if a in held and b in held)
    own = relative * (1 + SESSION_WEIGHT) - SESSION_WEIGHT
    session = 1 + SESSION_WEIGHT / own if own > 0 else math.inf
    return score * (1 + SUBJECT_BOOST) * session


def plan_stream(sample: Scan, query_terms: list[str], floor: float, relative: float,
                text: str | None) -> list[str]:
    """Which terms the scan of a large log streams, from its sample (taken first), for a
    ranking that wants only entries scoring ``floor`` match units or more, within
    ``relative`` of the best (recall's; see score_bound).

    The most common terms are left out for as long as an entry holding only them could not
    reach the floor (MaxScore's non-essential terms): every entry that can qualify holds one
    of the others, which pick the candidates; the common ones are still counted when a
    candidate is read back, their df estimated from the sample. None left: no entry can
    qualify (``what about the dog?`` where one entry in seven has a dog), no stream at all.
    A message that names a time streams every term (the time boost is not bounded so)."""
    months, years = when_named(text)
    if months or years or days_named(text):
        return list(query_terms)
    n, seen = max(sample.lines, 1), max(sample.sampled, 1)
    counts = sample.sample_df or {}
    # a term the sample did not see is taken as rare as can be (held by one entry)
    idfs = {t: idf(n, max(round(counts.get(t, 0) * n / seen), 1)) for t in query_terms}
    wanted = floor * match_unit(n)
    left_out: set[str] = set()
    for t in sorted(query_terms, key=lambda t: (idfs[t], query_terms.index(t))):
        if counts.get(t, 0) < COMMON_MIN_SEEN:
            break
        if score_bound(idfs, query_terms, left_out | {t}, relative) >= wanted:
            break
        left_out.add(t)
    return [t for t in query_terms if t not in left_out]


def _line_at(mm, offset: int) -> tuple[int, int, bytes]:
    start = mm.rfind(b"\n", 0, offset) + 1
    end = mm.find(b"\n", offset)
    if end == -1:
        end = len(mm)
    return start, end, mm[start:end]


def rank(query, *, log=None, include_memory: bool = True, explain: bool = False,
         started: Started | None = None, python_below: int = 0,
         min_units: float | None = None, relative: float = 0.0) -> list[dict]:
    """Entries (and memory chunks) that answer ``query.text``, best first, each with ``score``.

    ``query`` is a :class:`zettelclaw.query.Query`: its structured filters apply exactly,
    replaced entries are left out unless ``include_replaced`` (then marked ``replacedBy``), and
    ``limit`` (default 20) caps the results. ``log`` is a path or a :class:`~zettelclaw.log.Log`
    (default: the resolved log). With ``explain`` every result carries an ``explain`` object.
    ``started``: the scan's rg processes from :func:`start_scan`, already at work.
    ``python_below``: a log of at most this many bytes is scanned in Python (see scan_log).
    ``min_units`` and ``relative`` (recall's ``minScore`` and ``RELATIVE``): only entries that
    score this many match units (see :func:`match_unit`), within ``relative`` of the best, are
    wanted; on a large log the scan is then planned from its sample (see :func:`plan_stream`):
    a common word's matches are not streamed when they alone cannot qualify.
    """
    import heapq
    import mmap

    from . import paths

    path = paths.log_file() if log is None else os.fspath(getattr(log, "path", log))
    query_terms = analyze(query.text)
    limit = query.limit or DEFAULT_LIMIT
    if not query_terms:
        return []
    structural = _structural(query)

    chunks: list[Chunk] = []

    def read_chunks():  # the memory files are read while rg scans the log
        if include_memory and not has_filters(query):
            chunks.extend(memory_chunks())

    plan = None
    if min_units is not None:
        def plan(sample: Scan) -> list[str]:
            return plan_stream(sample, query_terms, min_units, relative, query.text)

    scan = scan_log(path, query_terms, read_chunks, started, python_below, plan)

    stats = Stats(n=scan.lines + len(chunks))
    stats.df.update(scan.df_estimate)  # terms too common to stream: from the sample
    for t, lines in scan.tf.items():
        stats.df[t] = len(lines)
    for chunk in chunks:
        for t in set(chunk.tokens) & set(query_terms):
            stats.df[t] = stats.df.get(t, 0) + 1
    for name, values in scan.sample_lengths.items():
        stats.avg[name] = (sum(values) / len(values)) if values else 1.0
    stats.finish(query_terms)

    depth = max(limit, RERANK_DEPTH)
    top: list[tuple[float, int, dict, dict | None]] = []  # min-heap (score, tiebreak, item, why)
    order = 0

    def push(score: float, item: dict, why: dict | None) -> None:
        nonlocal order
        order += 1
        entry = (score, order, item, why)
        if len(top) < depth:
            heapq.heappush(top, entry)
        elif score > top[0][0]:
            heapq.heapreplace(top, entry)

    if scan.offsets:
        # best-first by BM25 with the term counts the scan saw (field and length unknown),
        # then the most recent. (k1 + 1) * that is an upper bound of a line's exact score, so
        # exact scoring stops once it cannot beat the pool, or after EXACT_LIMIT lines (on a
        # large log, the shortlist)
        sat = K1 + 1
        # the most the terms that were not streamed can add to a line (see plan_stream)
        unseen = sum(stats.idf.get(t, 0.0) * sat for t in scan.df_estimate)
        approx: dict = dict.fromkeys(scan.offsets, unseen)
        for t, lines in scan.tf.items():
            weight = stats.idf.get(t, 0.0)
            part = {n: weight * n * sat / (n + K1) for n in set(lines.values())}
            for key, n in lines.items():
                approx[key] += part[n]
        # (with structured filters every candidate stays in line: most may not pass them)
        shortlist = len(approx) if has_filters(query) else min(len(approx), EXACT_LIMIT * 4)
        # (``approx`` is in file order: reversed, a stable sort puts the last appended first;
        # dates are unknown before parsing, and the final order breaks ties by date)
        ordered = sorted(reversed(approx), key=approx.__getitem__, reverse=True)[:shortlist]
        wanted = set(query_terms)
        prefixes = tuple(prefixes_of(query_terms))
        needles = structural.needles()
        scored = 0
        from .fsutil import open_read

        with open_read(path) as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            loads = json_loads(len(mm))
            for key in ordered:
                if len(top) >= depth and approx[key] * sat <= top[0][0]:
                    break
                if scored >= EXACT_LIMIT:
                    break
                _, line_end, raw = _line_at(mm, int(scan.offsets[key]))
                if needles and not all(needle in raw for needle in needles):
                    continue
                try:
                    entry = loads(raw)
                except ValueError:
                    entry = parse_line(raw)  # a byte-order mark before the first line
                    if entry is None:
                        continue
                if not is_entry(entry) or not structural.matches(entry):
                    continue
                scored += 1
                resolution = scan.resolution
                replacer = (resolution.replaced_by(entry["id"], line_end)
                            if resolution.is_named(entry["id"]) else None)
                if replacer is not None:
                    if not query.include_replaced:
                        continue
                    entry["replacedBy"] = replacer
                counts, lengths = field_counts(entry, wanted, prefixes)
                why = {} if explain else None
                score = bm25f(counts, lengths, stats, query_terms, why)
                if score > 0:
                    push(score, entry, why)

    if chunks:
        avg = sum(len(c.tokens) for c in chunks) / len(chunks)
        chunk_stats = stats.with_avg({"content": avg})
        for chunk in chunks:
            why = {} if explain else None
            score = bm25f({"content": _counter(chunk.tokens)}, {"content": len(chunk.tokens)},
                          chunk_stats, query_terms, why)
            if score > 0:
                item = {"source": "memory", "path": chunk.path, "startLine": chunk.start,
                        "endLine": chunk.end, "snippet": snippet(chunk.text)}
                push(score, item, why)

    # second stage over the pool: proximity, the subject the question names, the month or
    # year it names, then each entry's session context (passage retrieval's document score)
    wanted = set(query_terms)
    months, years = when_named(query.text)
    days = days_named(query.text)
    pool = []
    for score, _, item, why in top:
        boosts = {}
        memory = item.get("source") == "memory"
        text = item.get("snippet") if memory else (
            f"{item.get('content', '')}\n{item.get('detail') or ''}")
        total = score
        near, pairs = proximity(words(text), query_terms, stats)
        if near:
            total += near
            boosts["proximity"] = {"pairs": pairs, "score": round(near, 4)}
        subject = item.get("subject")
        if not memory and isinstance(subject, str) and subject:
            named = subject_terms(subject)
            if named and wanted.issuperset(named):
                gain = total * SUBJECT_BOOST
                total += gain
                boosts["subject"] = {"subject": subject, "score": round(gain, 4)}
        pool.append([total, item, why, boosts, score])
    if (months or years) and pool:
        best = max(p[0] for p in pool)
        for p in pool:
            if p[0] <= 0 or p[1].get("source") == "memory":
                continue
            near = bool(days) and _near_day(p[1], days)  # the very week the question names
            if near or _written_in(p[1], months, years):
                gain = WHEN_BOOST * best * (2 if near else 1)
                p[0] += gain
                p[3]["when"] = {"months": sorted(months), "years": sorted(years),
                                "score": round(gain, 4)}
    context: dict[str, float] = {}
    for total, item, *_ in pool:
        sid = item.get("session")
        if isinstance(sid, str) and sid:
            context[sid] = max(context.get(sid, 0.0), total)
    results = []
    for total, item, why, boosts, bm25 in pool:
        sid = item.get("session")
        if isinstance(sid, str) and sid and SESSION_WEIGHT:
            gain = SESSION_WEIGHT * context[sid]
            total += gain
            boosts["session"] = {"session": sid, "score": round(gain, 4)}
        item = dict(item)
        item["score"] = round(total, 4)
        if explain:
            item["explain"] = {"bm25": round(bm25, 4),
                               "terms": why or {}, "boosts": boosts,
                               "n": stats.n, "engine": scan.engine}
            if scan.estimated:  # N and the field lengths from a sample of a large log
                item["explain"]["estimated"] = True
        results.append((total, item))
    # equal scores: the later-dated first (the log is not in time order)
    results.sort(key=lambda pair: (pair[0], sort_key(pair[1].get("timestamp"))), reverse=True)
    return [item for _, item in results[:limit]]
