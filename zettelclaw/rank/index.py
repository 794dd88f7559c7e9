"""The log's words kept between turns: ``rank-index.bin`` beside the log (a small log's).

A small log (up to SMALL_LOG) is scanned in Python on every ``recall`` and ``search``: each
query prefix found with ``bytes.find`` over the whole log, each match's word read out and
stemmed, and the ``"replaces"`` ids collected. On a year of use that scan was most of a turn.
The log is append-only, so what the scan finds in its first ``size`` bytes stays true while
those bytes stay: this file keeps it, and a query scans only the lines appended since.

What it keeps is exactly what the scan reads: every word of the lowercased log (a run of ASCII
word bytes and bytes of UTF-8 sequences), and per word the lines holding it, with how often it
stands where an entry is scored and whether it also stands where none is (a JSON key, a
status: see :func:`.scans._structural`); and the offsets and ids of the ``"replaces"``. A
query looks its prefixes up in the sorted words (``bisect``) and gets the same term counts,
document frequencies and candidate lines as a scan of those bytes (tests/test_kept_index.py
compares the two on varied logs).

It is a cache: deleting it changes no answer. It is trusted only when the log has the inode it
was made for, is at least ``size`` long and its first ``size`` bytes have its CRC
(:mod:`zettelclaw.logcache`'s check); a log rewritten (``purge``, ``subjects rename``),
truncated or replaced is scanned whole, as before. It holds words of entries, so ``purge``
deletes it with the other caches (:func:`zettelclaw.logcache.drop`); a forgotten entry is
hidden by its forget record, which the kept ``"replaces"`` (or the scan of the lines after
them) name. It is written (temp file and rename) only under the directory lock taken if free
at once: a turn never waits.

The file: a header line (``zcidx``, version, byte order, inode, size, crc, the lengths of the
parts, ``end``), the words sorted and joined by newlines, then arrays of unsigned 32-bit
integers: per word where it starts among them (``nwords + 1``: a turn reads out only the words
its bisection touches) and where its postings start (``nwords + 1`` for the lines where it
stands where nothing is scored, as many for the others), those lines, the scored lines and the
counts beside them, the offsets of the ``"replaces"``; last the ids they name, sorted, joined by
a quote (which no id found in a ``"replaces"`` holds).
"""

from __future__ import annotations

import os
import sys

from ..logcache import RANK_INDEX as CACHE_FILE
from ..logcache import crc_upto, holds, store

INDEX_FROM = 64 << 10   # a log shorter than this is scanned whole (cheaper than the file)
STORE_AFTER = 64 << 10  # kept again (merged) once this much log lies beyond it
_VERSION = 2
_MAGIC = b"zcidx"

# the bytes of a word (scans._WORD_BYTES and every byte of a UTF-8 sequence); MARK stands
# before a word where no entry is scored (see _postings); every other byte ends a word
_MARK = 0x02
_KEEP = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_SPLIT = bytes(b if b in _KEEP or b >= 0x80 or b == _MARK else 0x20 for b in range(256))
_TEXT_KEYS = (b"content", b"detail", b"subject")  # bm25.FIELDS, the keys of scored text


def index_path(log_path) -> str:
    return os.path.join(os.path.dirname(os.fspath(log_path)) or ".", CACHE_FILE)


class Index:
    """A kept index, checked against the log: the words, their postings, the "replaces".
    Per word ``k``: ``structural[sstarts[k]:sstarts[k + 1]]`` the lines where it stands where
    nothing is scored, ``scored[tstarts[k]:tstarts[k + 1]]`` the lines where it stands where
    an entry is scored, and ``counts`` (same places) how often it does there."""

    def __init__(self, inode: int, size: int, crc: int, words: Words, arrays: dict,
                 replaces: list[bytes]):
        self.inode, self.size, self.crc = inode, size, crc
        self.words, self.arrays, self.replaces = words, arrays, replaces

    def named(self, later: dict[str, list[int]]) -> Named:
        """Where each id is named by a "replaces": the kept ones, and ``later`` (found in the
        lines appended since)."""
        return Named(self.replaces, self.arrays["at"], later)

    def apply(self, scan, needles, wanted: set[str]) -> None:
        """Into ``scan``: what a scan of the kept bytes finds for ``needles`` (word starts, as
        :func:`.scans.scan_python` looks for them) whose words stem to a term in ``wanted``."""
        from .english import stem

        words, arrays = self.words, self.arrays
        sstarts, structural = arrays["sstarts"], arrays["structural"]
        tstarts, scored, counts = arrays["tstarts"], arrays["scored"], arrays["counts"]
        tf, df_only, offsets = scan.tf, scan.df_only, scan.offsets
        end = len(words)
        for needle in needles:
            k = _first(words, needle)
            while k < end and words[k].startswith(needle):
                term = stem(words[k].decode("utf-8", "replace").lower())
                if term in wanted:
                    a, b = sstarts[k], sstarts[k + 1]
                    if b > a:
                        df_only.setdefault(term, set()).update(structural[a:b])
                    a, b = tstarts[k], tstarts[k + 1]
                    if b > a:  # (as lists: zipping the mapped arrays took twice as long)
                        keys, ns = scored[a:b].tolist(), counts[a:b].tolist()
                        found = tf.setdefault(term, {})
                        if found:  # another word of the same term (or a needle again)
                            for key, n in zip(keys, ns, strict=True):
                                found[key] = found.get(key, 0) + n
                        else:
                            found.update(zip(keys, ns, strict=True))
                        offsets.update(zip(keys, keys, strict=True))
                k += 1


class Words:
    """The kept words, sorted, as a sequence read out of the mapped file one at a time: a turn
    bisects for a few prefixes (splitting all 19,000 words of a year's log cost it 1 ms)."""

    def __init__(self, raw, base: int, starts):
        self.raw, self.base, self.starts = raw, base, starts  # starts: nwords + 1, past a \n

    def __len__(self) -> int:
        return len(self.starts) - 1

    def __getitem__(self, k: int) -> bytes:
        return self.raw[self.base + self.starts[k]:self.base + self.starts[k + 1] - 1]

    def __iter__(self):
        return (self[k] for k in range(len(self)))


def _first(words: Words, needle: bytes) -> int:
    """Where ``needle`` goes in the sorted ``words`` (bisect_left, without loading bisect)."""
    lo, hi = 0, len(words)
    while lo < hi:
        mid = (lo + hi) // 2
        if words[mid] < needle:
            lo = mid + 1
        else:
            hi = mid
    return lo


class Named:
    """The mapping ``resolve.StreamingResolution`` asks (``id in named``, ``named.get(id,
    [])``): the kept ids (sorted, their offsets beside them) looked up by ``bisect``, then the
    ones found in the lines appended since (``later``)."""

    def __init__(self, ids: list[bytes], offsets, later: dict[str, list[int]]):
        self.ids, self.offsets, self.later = ids, offsets, later
        self.last = dict(zip(ids, range(len(ids)), strict=True))  # id -> its last place

    def _kept(self, entry_id: str) -> list[int]:
        k = self.last.get(entry_id.encode("utf-8", "surrogatepass"))
        if k is None:
            return []
        ids, found = self.ids, [self.offsets[k]]
        while k > 0 and ids[k - 1] == ids[k]:  # named more than once (a forked log)
            k -= 1
            found.append(self.offsets[k])
        return found

    def __contains__(self, entry_id: str) -> bool:
        return entry_id in self.later or bool(self._kept(entry_id))

    def get(self, entry_id: str, default=None):
        found = self._kept(entry_id) + self.later.get(entry_id, [])
        return found or default


def usable(needles) -> bool:
    """Whether every needle is made of word bytes (a prefix always is): only then do the kept
    words answer what a scan for them finds."""
    return all(needle and all(b in _KEEP or b >= 0x80 for b in needle) for needle in needles)


_ARRAYS = ("wstarts", "sstarts", "tstarts", "structural", "scored", "counts", "at")


def load(log_path, fd: int, size: int, known: dict[int, int] | None = None) -> Index | None:
    """The kept index of the log open at ``fd`` (``size`` bytes), if it holds for it (mapped,
    not read: a query touches the pages of the words it looks up; ``known``: see
    :func:`..logcache.holds`)."""
    import mmap

    from ..fsutil import open_read

    try:
        with open_read(index_path(log_path)) as fh:
            mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        found = _parse(mapped)
    except Exception:  # noqa: BLE001 - absent, unreadable, refused or not ours: scan the log
        return None
    if found is None or found.inode != os.fstat(fd).st_ino or not holds(fd, found, size, known):
        return None
    return found


def _parse(raw) -> Index | None:
    cut = raw.find(b"\n", 0, 512)
    fields = raw[:cut].split(b" ") if cut > 0 else []
    if len(fields) != 13 or fields[0] != _MAGIC or fields[1] != str(_VERSION).encode() \
            or fields[2] != sys.byteorder.encode() or fields[12] != b"end" \
            or not all(f.isdigit() for f in fields[3:12]):
        return None
    inode, size, crc, nwords, vocab, nstruct, nscored, nrepl, repl_bytes = \
        (int(f) for f in fields[3:12])
    view = memoryview(raw)
    at = cut + 1
    base = at
    at += vocab
    arrays = {}
    for name, length in zip(_ARRAYS, (nwords + 1, nwords + 1, nwords + 1, nstruct, nscored,
                                      nscored, nrepl), strict=True):
        arrays[name] = view[at:at + 4 * length].cast("I")
        at += 4 * length
    if at + repl_bytes != len(raw) or arrays["sstarts"].itemsize != 4 \
            or arrays["wstarts"][0] != 0 or arrays["wstarts"][-1] != vocab + bool(nwords) \
            or arrays["sstarts"][-1] != nstruct or arrays["tstarts"][-1] != nscored:
        return None
    words = Words(raw, base, arrays["wstarts"])
    replaces = raw[at:at + repl_bytes].split(b'"') if nrepl else []
    if len(replaces) != nrepl:
        return None
    return Index(inode, size, crc, words, arrays, replaces)


def _postings(data: bytes, base: int) -> dict[bytes, tuple[list, list, list]] | None:
    """Per word of ``data`` (whole lines starting at offset ``base``): the lines where it
    stands where nothing is scored, the lines where it stands where an entry is, and how often
    there. None when the bytes hold the mark itself (a control byte no JSON line has)."""
    if b"\x02" in data:
        return None
    low = data.lower()
    # a word is structural (scans._structural) when '"' stands before it and ',' or '{' before
    # that (a key), or ':' (a value) with a key other than the scored ones before it: the mark
    # goes after every such quote, then comes off again after the scored keys
    marked = low.replace(b',"', b',"\x02').replace(b'{"', b'{"\x02').replace(b':"', b':"\x02')
    for key in _TEXT_KEYS:
        marked = marked.replace(b'"\x02' + key + b'":"\x02', b'"\x02' + key + b'":"')
        marked = marked.replace(b'"' + key + b'":"\x02', b'"' + key + b'":"')
    postings: dict[bytes, tuple[list, list, list]] = {}
    start = base
    for plain, line in zip(low.split(b"\n"), marked.split(b"\n"), strict=True):
        if line:
            seen: dict[bytes, int] = {}
            for token in line.translate(_SPLIT).split():
                if token[0] == _MARK:
                    if len(token) > 1:
                        word = token[1:]
                        seen[word] = seen.get(word, 0) | 1
                else:
                    seen[token] = seen.get(token, 0) + 2
            for word, code in seen.items():
                found = postings.get(word)
                if found is None:
                    found = postings[word] = ([], [], [])
                if code & 1:
                    found[0].append(start)
                if code > 1:
                    found[1].append(start)
                    found[2].append(code >> 1)
        start += len(plain) + 1
    return postings


def keep(log_path, fd: int, data: bytes, base: int, found: Index | None) -> None:
    """Keep the index of the log open at ``fd``, of which ``data`` are the bytes from ``base``
    (``found``'s size, or 0): when there is none and the log is long enough to be worth it,
    or STORE_AFTER bytes lie beyond ``found`` (then merged with the whole lines appended
    since). Quiet on any failure."""
    stop = data.rfind(b"\n") + 1
    if base + stop < INDEX_FROM or stop < (STORE_AFTER if found is not None else 1):
        return
    try:
        _store(log_path, fd, data[:stop], base, found)
    except Exception:  # noqa: BLE001 - a cache: the answer never depends on it
        pass


def _store(log_path, fd: int, data: bytes, base: int, found: Index | None) -> None:
    from array import array

    from ..resolve import replaces_in

    stop = base + len(data)
    if stop >= 1 << 32 or array("I").itemsize != 4:
        return
    tail = _postings(data, base)
    if tail is None:
        return
    old = {w: k for k, w in enumerate(found.words)} if found is not None else {}
    words = sorted(old.keys() | tail.keys())
    out = {name: array("I") for name in _ARRAYS}
    out["wstarts"].append(0)
    out["sstarts"].append(0)
    out["tstarts"].append(0)
    none: tuple[list, list, list] = ([], [], [])
    for word in words:
        k = old.get(word)
        if k is not None:
            arrays = found.arrays
            a, b = arrays["sstarts"][k], arrays["sstarts"][k + 1]
            out["structural"].frombytes(arrays["structural"][a:b].cast("B"))
            a, b = arrays["tstarts"][k], arrays["tstarts"][k + 1]
            out["scored"].frombytes(arrays["scored"][a:b].cast("B"))
            out["counts"].frombytes(arrays["counts"][a:b].cast("B"))
        structural, scored, counts = tail.get(word, none)
        out["structural"].extend(structural)
        out["scored"].extend(scored)
        out["counts"].extend(counts)
        out["wstarts"].append(out["wstarts"][-1] + len(word) + 1)
        out["sstarts"].append(len(out["structural"]))
        out["tstarts"].append(len(out["scored"]))
    # the "replaces": by id (as decoded, in UTF-8: never a quote) then offset
    replaces = list(zip(found.replaces, found.arrays["at"], strict=True)) \
        if found is not None else []
    replaces += [(target.encode(), base + at) for at, target in replaces_in(data)]
    replaces.sort()
    out["at"].extend(at for _, at in replaces)
    vocab = b"\n".join(words)
    blob = b'"'.join(target for target, _ in replaces)
    inode = os.fstat(fd).st_ino
    head = " ".join(str(v) for v in (
        _MAGIC.decode(), _VERSION, sys.byteorder, inode, stop,
        crc_upto(fd, stop, base, found.crc if found is not None else 0),
        len(words), len(vocab), len(out["structural"]), len(out["scored"]), len(replaces),
        len(blob), "end")) + "\n"
    payload = b"".join([head.encode(), vocab, *(out[name].tobytes() for name in _ARRAYS), blob])
    store(index_path(log_path), log_path, inode, payload)
