"""Where an extracted entry's words came from, found by code from the conversation's messages,
never taken from the model (:mod:`zettelclaw.people` names the classes).

Each message of the conversation has an origin (:func:`settle`: from the transcript's own marks,
else from the session's person). An entry is matched against them by its terms (the ranker's
stems, stop words left out):

- a term the entry shares only with untrusted messages (another person's words, the assistant's
  words after a web page in that turn) makes it ``untrusted``: a claim of a web page restated
  by the model stays the web page's, whatever else it says;
- so does an entry that shares no term with any trusted message of a conversation holding
  untrusted ones (its origin cannot be established, and it is never ``owner``);
- quoting is not saying (:func:`reported`): words the owner only quotes, forwards or
  attributes to someone else ("Did Mallory really ask to transfer 5000 euros to DE00...?",
  "> pay the invoice today", a forwarded mail) are not the owner's own. A task, fact or
  decision holding a term the owner said only so (never in their own voice) is
  ``untrusted``: whoever said it first is not known to be the owner, and the entry waits
  for the owner's confirmation (``zettelclaw review confirm``). A question may hold them:
  asking about a thing is the owner's own question;
- otherwise ``owner`` when the owner's own messages hold at least half its terms and as many
  as the assistant's do, else ``agent`` (the assistant's words, or the model's summary: a
  handoff is always ``agent``).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..people import AGENT, OWNER, SYSTEM, UNTRUSTED
from ..transcripts import USER, Message


def settle(messages: Iterable[Message], person: str) -> list[Message]:
    """The messages with every origin known, relative to ``person``, whose memory the
    conversation makes (docs/people.md: ``owner`` is the words of the person whose memory it
    is, ``agent`` the assistant's in that person's turns, ``untrusted`` words from the network
    or another person).

    In the owner's session, what the transcript does not say (2026.2 has no
    ``senderIsOwner``) follows the session: the user is the owner and the assistant's words are
    ``agent``. In another person's direct session, the user is that person (OpenClaw says she
    is not the owner, which is why the session is hers): her words are ``owner`` of her memory,
    the assistant's ``agent``, except after words from the network in the turn."""
    from dataclasses import replace

    from ..people import NOBODY, UNKNOWN

    out = []
    for message in messages:
        if person in (NOBODY, UNKNOWN):  # whose words they are is not known: none are trusted
            message = replace(message, origin=UNTRUSTED)
        elif person != OWNER:
            message = replace(message, origin=_theirs(message))
        elif message.origin is None:
            origin = OWNER if message.role == USER else AGENT
            message = replace(message, origin=origin)
        out.append(message)
    return out


# someone other than the speaker, then a verb that reports their words: "Mallory asked",
# "did Mallory really ask", "the bank wrote", "she says", "according to Bob"
_REPORTER = (r"(?:(?<![\w'])(?!(?:I|We|You|Let|Please|Can|Could|Would|Will|Should|Did|Do|Does|"
             r"Has|Have|Is|Are|Was|Were|Then|So|And|But|If|When|Yes|No|OK|Ok|My|Our|Your|His|"
             r"Her|Their|Its|It|The|This|That|These|Those|There|Here|What|Who|Where|Which|"
             r"How|Why)\b)[A-Z][\w'-]+"
             r"|\b(?i:he|she|they|someone|somebody|everyone|(?:the|my|our|his|her|their) "
             r"[\w-]+))")
_REPORTS = (r"(?:\s+(?:really|just|also|then|now|even|apparently|supposedly|again))?\s+"
            r"(?:ask(?:s|ed)?|say(?:s)?|said|write(?:s)?|wrote|tell(?:s)?|told|want(?:s|ed)?|"
            r"claim(?:s|ed)?|request(?:s|ed)?|send(?:s)?|sent|e-?mail(?:s|ed)|"
            r"messag(?:es|ed)|text(?:s|ed)|insist(?:s|ed)?|demand(?:s|ed)?|"
            r"instruct(?:s|ed)?|forward(?:s|ed)?)\b")
# what may come before the one who said it, at the start of the sentence: "Did Mallory
# really ask", "Apparently my boss wants", "FYI, Bob says" (not "Book the table they want")
_LEAD = (r"\W*(?:(?i:did|does|do|has|have|had|why|how come|so|and|but|also|apparently|"
         r"really|btw|fyi|ok|okay|now|then|today|yesterday|again|hey|look|listen|wait|well|"
         r"oh|wow|hm+|is it true that|i heard)[\s,:]+){0,3}")
_QUOTED = r"[\"\u201c\u201e\u00ab]([^\"\u201c\u201d\u201e\u00ab\u00bb\n]{3,})[\"\u201d\u00bb]"
_FORWARD = (r"(?im)^\s*(?:-+\s*forwarded message|begin forwarded message|-+\s*original message|"
            r"fwd?:)")


def reported(text: str) -> tuple[str, str]:
    """``text`` (an owner's message) as ``(said, reported)``: what the speaker says in their
    own voice, and what they only quote (in quotation marks, ``>`` lines), forward (all that
    follows a forwarded-message mark) or attribute to someone else (a sentence naming another
    who asked, said, wrote, wants... it, or "according to" someone)."""
    import re

    said, other = [], []
    forward = re.search(_FORWARD, text)
    if forward:
        other.append(text[forward.start():])
        text = text[:forward.start()]
    for line in text.splitlines():
        if line.lstrip().startswith(">"):
            other.append(line)
            continue
        other.extend(m.group(1) for m in re.finditer(_QUOTED, line))
        line = re.sub(_QUOTED, " ", line)
        for sentence in re.split(r"(?<=[.!?;])\s+", line):
            if re.match(_LEAD + _REPORTER + _REPORTS, sentence) \
                    or re.search(r"(?i)\baccording to\b", sentence):
                other.append(sentence)
            else:
                said.append(sentence)
    return "\n".join(said), "\n".join(other)


def _theirs(message: Message) -> str:
    """A message's origin in another person's own session (see :func:`settle`)."""
    if message.origin == SYSTEM:
        return SYSTEM
    if message.role == USER:
        return OWNER
    return UNTRUSTED if message.tainted else AGENT


class Origins:
    """The terms of one conversation's messages, by origin; :meth:`of` classifies an entry."""

    def __init__(self, messages: Iterable[Message]):
        from ..rank.english import terms

        self.terms: dict[str, set[str]] = {OWNER: set(), AGENT: set(), UNTRUSTED: set()}
        self.reported: set[str] = set()  # what the owner only quoted, forwarded, attributed
        for message in messages:
            origin = UNTRUSTED if message.origin in (UNTRUSTED, SYSTEM, None) \
                else message.origin
            if origin == OWNER and message.role == USER:
                said, other = reported(message.text)
                self.terms[OWNER].update(terms(said))
                self.reported.update(terms(other))
            else:
                self.terms[origin].update(terms(message.text))
        self._terms = terms

    def of(self, entry: dict) -> str:
        """The origin class of an entry made from this conversation."""
        words = set(self._terms(" ".join(str(entry.get(k) or "")
                                         for k in ("content", "detail"))))
        owner, agent, untrusted = (self.terms[OWNER], self.terms[AGENT],
                                   self.terms[UNTRUSTED])
        trusted = owner | agent | self.reported  # (the owner's message, quoting or not)
        if untrusted and (words & untrusted - trusted or not words & trusted):
            return UNTRUSTED
        if entry.get("type") not in ("question", "handoff") and words & self.reported - owner:
            return UNTRUSTED  # the owner only quoted it: not known to be the owner's own
        if entry.get("type") == "handoff" or not words:
            return AGENT
        said = len(words & (owner | self.reported))
        if said * 2 >= len(words) and said >= len(words & agent):
            return OWNER
        return AGENT
