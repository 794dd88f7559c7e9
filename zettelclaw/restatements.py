"""A restatement in other words (issue 22): is a new fact or decision the same as a current one
of the same subject and type, said again? Then it is not a second current entry.

The check is deterministic and errs towards "different". Each text becomes its content words
(Snowball stems; stop words, a leading ``user`` and words that carry no fact dropped:
``please``, ``keep``, ``always``, ``just``, and ``still``, ``now``, ``currently`` (a value
restated unchanged, "still 8 degrees", is the current entry said again) ...; liking words as
one: ``prefers``, ``likes``, ``loves`` ...; negations and qualifiers as one: ``not``, ``no``,
``without``, ``only``). Two texts may merge only when

* neither hides words: text redacted or kept private (``[redacted]``, ``[private]``) may
  differ in what was hidden;
* no *value* tells them apart: a word one has and the other lacks is never a number or holds
  a digit (``51900``/``51800``, ``v2``, ``3pm``), a name (capitalised inside a sentence, an
  acronym, a capitalised first word that is not a common one or the verb of an instruction:
  ``Max prefers email`` is not ``Prefers email``), a negation or a qualifier (``no longer``,
  ``except``, ``only``, ``unless``);
* an order does not tell them apart: when both say ``over``, ``than``, ``rather``,
  ``versus`` or ``from``, the words on either side are the same (``tabs over spaces`` is not
  ``spaces over tabs``);
* when one's words hold all of the other's, the longer adds little: the shorter's words are
  SIMILARITY or more of the longer's (their Jaccard similarity, shared / all; a word said
  twice counts twice in "holds");
* when each has words the other lacks (other words for the same thing), the words they share
  are not all in the same order in both: that is the same frame with another word or phrase
  in it, a different fact (``staging`` for ``production``, ``Max`` for ``Sam``, ``encrypt the
  onboarding emails`` for ``simplify the search index``); a rephrasing moves words around.
  And they share PARAPHRASE_SHARED words or more, PARAPHRASE of all.

Measured (tests/test_restatements.py): none of the near-miss pairs merges, nor any of the
3,410 pairs of two different preferences of the year benchmark (bench/year_world.py, 12 said
in 5-6 wordings each), nor any of the 169,189 pairs of two different facts or decisions of one
subject in its year; all 14 paraphrase pairs and 108 of the 250 pairs of one preference's
wordings merge (102 with PARAPHRASE at 0.4, 74 at 0.6). No different pair of these passes the
other rules at any threshold, so PARAPHRASE and PARAPHRASE_SHARED are floors rather than a
line drawn under a near miss: below them two texts share too little for the share to say
anything. The wordings left apart differ in a negation ("meeting free" / "no meetings") or
in words used in the same frame ("drink" / "order"): left to the model, told that what it was
shown is known.

:func:`restates` says whether ``new`` restates ``old``, and how: ``"same"`` when ``new`` adds
no word (it is dropped: the current entry says it all) or ``"more"`` when it adds or changes
some (it replaces the current entry: one current entry, the older wording in its history).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

# chosen on tests/test_restatements.py's pairs and the year benchmark's preferences (above)
SIMILARITY = 0.75
PARAPHRASE = 0.3
PARAPHRASE_SHARED = 3

_NEGATIONS = frozenset("""
not no nor never none nothing nobody nowhere without neither cannot stop stopped longer
don doesn didn isn wasn aren weren won wouldn shouldn couldn can hasn haven hadn mustn shan
except unless only but excluding instead anymore
""".split())
_ORDERED = frozenset("over than rather versus vs from".split())
_LIKING = frozenset("""
prefer prefers preferred preferring preference like likes liked liking love loves loved
enjoy enjoys enjoyed favour favours favoured favor favors favored favorite favourite
""".split())
# words that carry no fact: asking, insisting, habit ("please keep ...", "always ..."), and
# saying a value holds ("still 8 degrees", "is now 8 degrees": a changed value differs in the
# value itself, which is never filler)
_FILLER = frozenset("please kindly keep always just really also still now currently".split())
# first words of an entry that are common words, not names, when capitalised; and the verbs
# an instruction starts with ("Skip the status meetings ...")
_COMMON_START = frozenset("""
user users prefers likes loves wants needs uses using works lives has had is was are
decided decide plans planning moved switched keeps always usually often sometimes team we
our the a an they he she it this that their his her its always never no not
use add give send take leave skip book plan schedule write read tell ask make put stick
""".split())


def _tokens(text: str) -> list[tuple[str, bool]]:
    """The words of ``text`` as (lowercase word, is a value), in order."""
    out = []
    start = True
    for raw in text.replace("'", " ").replace("\u2019", " ").split():
        word = raw.strip(".,;:!?()[]{}\"`*")
        ends = raw.endswith((".", "!", "?", ":", ";"))
        for part in word.replace("/", " ").replace("-", " ").replace("_", " ").split():
            low = part.lower()
            value = (any(c.isdigit() for c in part)
                     or part.isupper() and len(part) > 1
                     or part[:1].isupper() and (not start or low not in _COMMON_START))
            out.append((low, value))
            start = False
        if ends:
            start = True
    return out


_PERSON = frozenset({"user"})
_NOT = "not"  # every negation or qualifier, as one word
_HIDDEN = ("[redacted]", "[private]")


@lru_cache(maxsize=4096)
def _words(text: str) -> tuple[list[str], set[str], set[tuple[str, str]]]:
    """The compared stems of ``text`` in order, those that are values or negations, and the
    words on either side of each ordering word."""
    from .rank import STOP_WORDS, stem

    stems: list[str] = []
    marked: set[str] = set()
    around: list[int] = []  # positions in stems after which an ordering word stood
    for low, value in _tokens(text):
        if low in _ORDERED:
            around.append(len(stems))
            continue
        if low in _NEGATIONS:
            stems.append(_NOT)
            marked.add(_NOT)
            continue
        if low in STOP_WORDS or low in _FILLER \
                or low in _PERSON and not stems and not marked:
            continue  # (the person an entry starts with: "User prefers ...")
        s = ("like" if low in _LIKING
             else low if any(c.isdigit() for c in low) else stem(low))
        stems.append(s)
        if value:
            marked.add(s)
    pairs = {(stems[i - 1] if i > 0 else "", stems[i] if i < len(stems) else "")
             for i in around}
    return stems, marked, pairs


def _in_order(a: list[str], b: list[str]) -> set[str]:
    """The words of a longest common subsequence of ``a`` and ``b``: those the two have in the
    same order."""
    rows = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            rows[i][j] = rows[i + 1][j + 1] + 1 if a[i] == b[j] \
                else max(rows[i + 1][j], rows[i][j + 1])
    out, i, j = set(), 0, 0
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            out.add(a[i])
            i, j = i + 1, j + 1
        elif rows[i + 1][j] >= rows[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


def similarity(a: str, b: str) -> float:
    """The Jaccard similarity of two texts' compared stems (shared / all)."""
    x, y = set(_words(a)[0]), set(_words(b)[0])
    return len(x & y) / len(x | y) if x or y else 0.0


def restates(old: str, new: str) -> str | None:
    """``"same"`` when ``new`` says what ``old`` says, ``"more"`` when it says it with a few
    more or other words, None when they are different facts (see the module's docstring)."""
    if any(hidden in text for hidden in _HIDDEN for text in (old, new)):
        return None  # what was hidden may be what differs
    (old_stems, old_marked, old_pairs) = _words(old)
    (new_stems, new_marked, new_pairs) = _words(new)
    x, y = set(old_stems), set(new_stems)
    if not x or not y:
        return None  # nothing to compare
    if (x ^ y) & (old_marked | new_marked):
        return None  # a number, a name, a negation or a qualifier one of them lacks
    if old_pairs and new_pairs and old_pairs != new_pairs:
        return None  # the words in another order around "over", "from" ...
    shared = len(x & y) / len(x | y)
    # what each says that the other does not, a word said twice counting twice
    old_only = Counter(old_stems) - Counter(new_stems)
    new_only = Counter(new_stems) - Counter(old_stems)
    if not old_only or not new_only:
        if shared < SIMILARITY:
            return None  # the longer says much more: another fact, or a narrower one
        return "same" if not new_only else "more"
    if _in_order(old_stems, new_stems) >= x & y:
        return None  # the same frame with other words in it: ``staging`` for ``production``
    if len(x & y) < PARAPHRASE_SHARED or shared < PARAPHRASE:
        return None
    return "more"
