"""A restatement in other words (issue 22): is a new fact or decision the same as a current one
of the same subject and type, said again? Then it is not a second current entry.

The check is deterministic and errs towards "different". Each text becomes its content words
(Snowball stems; stop words and a leading ``user`` dropped; liking words as one:
``prefers``, ``likes``, ``loves`` ...; negations as one: ``not``, ``no``, ``without``). Two
texts may merge only when

* neither hides words: text redacted or kept private (``[redacted]``, ``[private]``) may
  differ in what was hidden;
* one's words hold all of the other's: a word swapped for another is never taken for a
  synonym (``staging`` for ``production``, ``Friday`` for ``Thursday``);
* no *value* tells them apart: a word one has and the other lacks is never a number or holds
  a digit (``51900``/``51800``, ``v2``, ``3pm``), a name (capitalised inside a sentence, an
  acronym, a capitalised first word that is not a common one: ``Max and Sam review``), a
  negation or a qualifier (``no longer``, ``except``, ``only``, ``unless``);
* an order does not tell them apart: the words on either side of ``over``, ``than``,
  ``instead``, ``rather``, ``versus``, ``from`` are the same (``tabs over spaces`` is not
  ``spaces over tabs``);
* the longer adds little: the shorter's words are SIMILARITY or more of the longer's
  (their Jaccard similarity, shared / all, since one holds the other).

:func:`restates` says whether ``new`` restates ``old``, and how: ``"same"`` when ``new`` adds
no word (it is dropped: the current entry says it all) or ``"more"`` when it adds a few (it
replaces the current entry: one current entry, the older wording in its history).
"""

from __future__ import annotations

from functools import lru_cache

# chosen on tests/test_restatements.py's pairs: no near-miss merges at or above it
SIMILARITY = 0.75

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
# first words of an entry that are common words, not names, when capitalised
_COMMON_START = frozenset("""
user users prefers likes loves wants needs uses using works lives has had is was are
decided decide plans planning moved switched keeps always usually often sometimes team we
our the a an they he she it this that their his her its always never no not
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
        if low in STOP_WORDS or low in _PERSON and not stems and not marked:
            continue  # (the person an entry starts with: "User prefers ...")
        s = ("like" if low in _LIKING
             else low if any(c.isdigit() for c in low) else stem(low))
        stems.append(s)
        if value:
            marked.add(s)
    pairs = {(stems[i - 1] if i > 0 else "", stems[i] if i < len(stems) else "")
             for i in around}
    return stems, marked, pairs


def restates(old: str, new: str) -> str | None:
    """``"same"`` when ``new`` says what ``old`` says, ``"more"`` when it says it with a few
    more words, None when they are different facts (see the module's docstring)."""
    if any(hidden in text for hidden in _HIDDEN for text in (old, new)):
        return None  # what was hidden may be what differs
    (old_stems, old_marked, old_pairs) = _words(old)
    (new_stems, new_marked, new_pairs) = _words(new)
    x, y = set(old_stems), set(new_stems)
    if not x or not y or not (x <= y or y <= x):
        return None  # nothing to compare, or a word swapped for another
    if (x ^ y) & (old_marked | new_marked):
        return None  # a number, a name, a negation or a qualifier one of them lacks
    if old_pairs != new_pairs:
        return None  # the same words in another order around "over", "from" ...
    if min(len(x), len(y)) / max(len(x), len(y)) < SIMILARITY:
        return None  # the longer says much more: another fact, or a narrower one
    return "same" if y <= x else "more"
