"""English terms: stop words, irregular verbs, Snowball stems (cached), tokens, the query's
stems and the word-starts a scan looks for."""

from __future__ import annotations

import _thread
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

# a query is a question or a few words, not a document: a longer one is refused (a 120 KB query
# took 82 s on a 100k-entry log), and only its first MAX_QUERY_TERMS distinct stems are scored
MAX_QUERY_CHARS = 1000
MAX_QUERY_TERMS = 64

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


class _WordChars(dict):
    """A ``str.translate`` table keeping word characters (``\\w``: ``isalnum()`` or ``_``,
    exactly what ``re``'s ``\\w+`` takes) and turning every other character into a space, so
    ``text.translate(WORD_CHARS).split()`` is ``re.findall(r"\\w+", text)`` without importing
    ``re`` (and enum, functools, collections with it: a fifth of recall's start-up). Each
    character is decided once; on ASCII text ``translate`` then runs in C from a cached table."""

    def __missing__(self, code: int) -> int:
        char = chr(code)
        self[code] = code if char.isalnum() or char == "_" else 32
        return self[code]


WORD_CHARS = _WordChars()
_stems: dict[str, str] = {}
_stemmer = None
# Snowball's stemmer keeps the word it works on in itself: the sweep's worker threads (each
# extraction ranks entries for the model) take turns with it. (``_thread``: built in, free to
# import on the per-turn path, where ``threading`` is not loaded.)
_stemming = _thread.allocate_lock()


def stem(word: str) -> str:
    """The Snowball English stem of a lowercase word, irregular verbs by their base form
    (``went`` -> ``go``; cached; safe from several threads)."""
    global _stemmer
    cached = _stems.get(word)
    if cached is None:
        with _stemming:
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
    return text.lower().translate(WORD_CHARS).split()


def terms(text: str) -> list[str]:
    """The stems BM25 counts in ``text``, in order, stop words dropped."""
    return [stem(w) for w in words(text) if keep(w)]


# the frame of a question, not its topic: "what kind of music" asks about music
_QUESTION_FRAME = r"\b(?:what|which)\s+(?:kinds?|types?|sorts?)\s+of\b"


def _without_frame(text: str) -> str:
    """``text`` with ``what kind of`` and the like blanked (``re`` imported only for a text
    that may hold the frame: ASCII text without its words cannot, whatever the case)."""
    low = text.lower()
    if text.isascii() and ("of" not in low or ("what" not in low and "which" not in low)
                           or not ("kind" in low or "type" in low or "sort" in low)):
        return text
    import re

    return re.sub(_QUESTION_FRAME, " ", text, flags=re.IGNORECASE)


def analyze(text: str | None) -> list[str]:
    """The distinct query stems of ``text``, in order of first appearance (``what kind of``
    and the like dropped), at most the first MAX_QUERY_TERMS (64) of them."""
    return list(dict.fromkeys(terms(_without_frame(text or ""))))[:MAX_QUERY_TERMS]


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
        for form in (*FORMS.get(t, ()), *SNOWBALL_EXCEPTIONS.get(t, ())):
            if stem(form) == t:
                out.add(form)
    return sorted(out)


# the words Snowball's English stemmer maps by its own list to a stem they do not start with
# (its "exceptions": skies -> sky, dying -> die): a scan by word-starts finds them by name
SNOWBALL_EXCEPTIONS = {"sky": ("skies",), "die": ("dying",), "lie": ("lying",),
                       "tie": ("tying",)}
