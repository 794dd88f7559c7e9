"""The year benchmark's world: a synthetic year of conversations with its ground truth.

Deterministic from the seed; the whole year (365 days) is drawn whatever ``--days`` runs, so a
short run is the first days of the long one. Each day holds 3-5 conversations of 4-10
exchanges (a user message, an assistant reply). A user message says one thing:

* **new things**: a fact (``The staging build timeout for Atlas Migration is 45 minutes.``:
  template sentences that differ only in words and numbers), a task (``We need to ...``), a
  decision (``We decided to ...``), a question (``Which ... ?``), or small talk;
* **follow-ups** of an earlier statement, 1-150 days later: a task said done (``Updating the
  ... is done.``), a question answered (``We went with ...``), a fact corrected (``Actually,
  the ... is 50 minutes.``); one planted change: the VPN port of Office Network, corrected 85
  days after it was first said;
* **preferences**: 12 of them, each said first and then restated (125 restatements in a
  year), in other words or, now and then, in the same words.

Subjects: 40 recurring ones (a few much busier than the rest) and a long tail of one-offs,
each named by two capitalised words in every sentence about it (the fake model's cue).

**Worlds** (:data:`WORLDS`) differ in how people talk, the rest drawn alike: ``named`` (every
sentence names its subject, the world above), ``quiet`` (follow-ups that never name their
subject, said in a conversation about something else, entries said without a subject),
``paraphrase`` (follow-ups in other words sharing two content words with what they close,
templated look-alikes differing by one noun, so word counts tie). The style's choices are drawn
from a random stream of their own: ``named`` is the same year whatever the others do.

Every statement keeps what it is about (``key``: a subject's named thing, a preference) and
its value, so the benchmark can judge: which entry a follow-up should close, which entries
say the same fact, which pairs really contradict each other.
"""

from __future__ import annotations

import random
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

YEAR = 365
START = datetime(2026, 1, 5, tzinfo=timezone.utc)  # day 1 (a Monday)
LAG_BUCKETS = ((1, 6), (7, 30), (31, 150))  # days between a statement and its follow-up
VPN_SAID, VPN_CHANGE_LAG = 2, 85  # said on day 2, changed on day 87: within a 90-day run

# -- words --------------------------------------------------------------------------------------

CODENAMES = ("Atlas Kestrel Harbor Juniper Orion Falcon Meadow Cobalt Willow Granite Sparrow "
             "Beacon Summit Lantern Quartz Tundra Marble Cinder Aspen Nimbus Pioneer Redwood "
             "Saffron Topaz Zephyr Ember Glacier Hollow Jasper Lumen Mosaic Opal Prism Raven "
             "Solstice").split()
PROJECT_KINDS = ("Migration Dashboard Billing Gateway Pipeline Portal Cluster Backup Website "
                 "Newsletter Renovation Garden Budget Onboarding Search Payroll Warehouse "
                 "Analytics Relaunch Archive").split()
PEOPLE = ("Priya Raman", "Max Keller", "Lena Vogt", "Omar Haddad", "Sofia Marquez")
ONE_OFF_KINDS = ("Festival Workshop Conference Wedding Trip Audit Launch Fundraiser Hackathon "
                 "Retreat Meetup Webinar Exhibition Tournament Reunion").split()
SYLLABLES = "ka ri to me su na lo ve pi da ne mo ru ta ki bo se la fu go ha ji ko mi no".split()

QUALIFIERS = ("staging production nightly weekly backup primary replica canary archive export "
              "import search upload invoice audit mobile desktop partner internal public "
              "legacy regional batch realtime").split()
MEASURES = (  # (named thing, unit, low, high)
    ("build timeout", "minutes", 5, 90),
    ("retention window", "days", 7, 400),
    ("review cycle", "days", 5, 60),
    ("batch size", "records", 50, 5000),
    ("replica count", "nodes", 2, 12),
    ("rate limit", "requests per minute", 60, 9000),
    ("budget", "euros", 500, 90000),
    ("queue depth limit", "jobs", 100, 20000),
    ("cache lifetime", "hours", 1, 72),
    ("disk quota", "gigabytes", 10, 2000),
    ("worker pool size", "workers", 2, 64),
    ("alert threshold", "percent", 50, 99),
)
TASK_VERBS = (("update", "Updating"), ("migrate", "Migrating"), ("review", "Reviewing"),
              ("document", "Documenting"), ("test", "Testing"), ("rotate", "Rotating"),
              ("clean up", "Cleaning up"), ("back up", "Backing up"),
              ("benchmark", "Benchmarking"), ("audit", "Auditing"), ("rewrite", "Rewriting"),
              ("archive", "Archiving"))
OBJECTS = ("webhook handlers", "login page", "invoice templates", "onboarding emails",
           "backup scripts", "search index", "deploy checklist", "access keys",
           "error dashboards", "release notes", "retry queue", "signup form", "cron jobs",
           "load balancer rules", "pricing page", "test fixtures", "data exports",
           "permission model", "status page", "vendor contracts")
DECISION_VERBS = ("freeze", "split", "merge", "simplify", "deprecate", "encrypt", "cache",
                  "outsource", "version", "monitor")
WHENS = ("before the launch", "after the audit", "every Monday", "this quarter",
         "until further notice", "from next sprint on", "for the pilot customers",
         "during the holidays")
CHOICES = {
    "database": ("Postgres", "MySQL", "SQLite", "MongoDB"),
    "queue": ("RabbitMQ", "Kafka", "Redis", "Beanstalk"),
    "identity provider": ("Okta", "Auth0", "Keycloak", "Authentik"),
    "hosting provider": ("Hetzner", "Fly", "Render", "Vultr"),
    "file format": ("Parquet", "Avro", "Protobuf", "Arrow"),
    "monitoring tool": ("Grafana", "Datadog", "Prometheus", "Zabbix"),
    "payment provider": ("Stripe", "Adyen", "Mollie", "Paddle"),
    "test runner": ("Pytest", "Vitest", "Playwright", "Cypress"),
}
SMALL_TALK = ("Thanks!", "Ok, sounds good.", "Great, thank you.", "Perfect.", "Got it, thanks.",
              "Nice.", "Cool, go on.")
REPLIES = ("Noted for {s}.", "Understood, that goes into my notes on {s}.", "Got it.",
           "Okay, I have that for {s}.", "All right.")
REPLY_TAILS = (" I will keep it in mind when we plan the next steps and mention it again when "
               "it becomes relevant.",
               " I will bring it up again when we look at the schedule for the coming weeks.",
               " If anything about it changes later, just tell me and I will update my notes.",
               " That fits with what we discussed earlier, so nothing else has to move for now.",
               " I have nothing to add for the moment; let me know how you want to go on.")

# Each preference: its paraphrases (the first is how it is first said). They share the words
# that carry the preference and differ in the rest.
PREFERENCES = (
    ("I prefer short answers without bullet points.",
     "Keep your answers short, and no bullet points please.",
     "Short answers work best for me, skip the bullet points.",
     "No bullet points, and keep the answers short.",
     "Please answer briefly, without bullet points.",
     "I like short answers, not bullet points."),
    ("I use metric units, never imperial ones.",
     "Metric units for me please, not imperial.",
     "Always give me metric units instead of imperial units.",
     "Imperial units confuse me, stick to metric.",
     "Use the metric system with me, not imperial."),
    ("No meetings before ten in the morning for me.",
     "I never take meetings before ten in the morning.",
     "Mornings before ten are meeting free for me.",
     "Please do not book meetings for me before ten.",
     "Keep my mornings free of meetings until ten."),
    ("I drink my coffee black, without sugar.",
     "Black coffee for me, no sugar at all.",
     "My coffee is always black and without sugar.",
     "When you order coffee for me, black and no sugar.",
     "No sugar and no milk in my coffee, just black."),
    ("I prefer dark mode in every editor.",
     "Dark mode in the editor is what I like.",
     "Please keep every editor I use in dark mode.",
     "My editors should always run in dark mode.",
     "I want dark mode whenever there is an editor."),
    ("I prefer async updates over status meetings.",
     "Send me async updates instead of calling status meetings.",
     "Status meetings bore me, async updates are better.",
     "Async written updates beat status meetings for me.",
     "Skip the status meetings and give me async updates."),
    ("I write Python with type hints everywhere.",
     "Type hints everywhere in my Python code please.",
     "All my Python code carries type hints.",
     "Python without type hints is not my style.",
     "Always add type hints when you write Python for me."),
    ("I read email only twice a day.",
     "Email gets my attention twice a day, no more.",
     "Twice a day is how often I check my email.",
     "I only look at my email two times a day.",
     "My email is read twice daily, not constantly."),
    ("I take the train rather than flying within Europe.",
     "I go by train, not by plane, within Europe.",
     "Trains over flights for my trips in Europe.",
     "Book trains, not flights, when I travel in Europe.",
     "Flying within Europe is out for me, I take the train."),
    ("I am vegetarian, so no meat in recipe ideas.",
     "Recipe ideas for me must be vegetarian, no meat.",
     "No meat please, I eat vegetarian.",
     "Keep recipes vegetarian for me, without meat.",
     "I do not eat meat, vegetarian recipes only."),
    ("Weekends are for family, no work scheduled then.",
     "Do not schedule work for me on weekends.",
     "My weekends belong to family, keep work off them.",
     "No work on weekends for me, family time.",
     "Leave my weekends free of work, family comes first."),
    ("I work on Berlin time, so plan my day in that zone.",
     "Plan my day in the Berlin time zone.",
     "My day runs on Berlin time.",
     "Schedule things for me in Berlin time.",
     "Berlin time is my time zone for planning."),
)
# the paraphrase world's look-alike objects: one noun apart ("the nightly cron job" / "the
# nightly API client"), so a follow-up that names the shared words ties
LOOKALIKE_OBJECTS = ("nightly cron job", "nightly API client", "nightly backup job",
                     "staging API client", "staging cron job", "weekly report job",
                     "weekly billing run", "billing API client", "billing cron job")
# follow-ups in other words, sharing two content words with the statement they close
# ({where}: " for <the subject>" or nothing)
PARAPHRASED_DONE = ("The {tail}{where} is done, finally.", "Good news, the {tail}{where} is done.",
                    "That {tail} thing{where} is done now.")
PARAPHRASED_ANSWER = ("We went with {option} for the {tail}{where} in the end.",
                      "For the {tail}{where}, we went with {option}.")
PARAPHRASED_CORRECTION = ("Actually, the {tail}{where} is {value} now.",
                          "Actually, it turns out the {tail}{where} is {value}.")

RESTATEMENTS = 125  # restatements of the 12 preferences in a year

_CAPITALISED_PAIR = re.compile(r"\b([A-Z][a-z]+ [A-Z][a-z]+)\b")
_ACTUALLY = re.compile(r"^\s*actually,?\s*", re.IGNORECASE)


def slugify(display: str) -> str:
    return display.lower().replace(" ", "-")


def subject_of(text: str) -> str | None:
    """The subject a sentence names: its first pair of capitalised words, as a slug."""
    match = _CAPITALISED_PAIR.search(text)
    return slugify(match.group(1)) if match else None


def content_of(text: str) -> str:
    """What an entry says for a user's sentence: the sentence, without a leading "Actually"."""
    bare = _ACTUALLY.sub("", text.strip())
    return bare[:1].upper() + bare[1:]


# -- the world ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Style:
    """How the people of a world talk: shares of statements said one way or another."""

    name: str
    about: str
    unnamed_follow_ups: float = 0.0  # follow-ups that do not name their subject
    away: float = 0.0  # follow-ups said in a conversation about other subjects
    unnamed_entries: float = 0.0  # tasks and questions said without their subject
    paraphrase: float = 0.0  # follow-ups in other words, two content words shared
    lookalikes: float = 0.0  # tasks about one of LOOKALIKE_OBJECTS


WORLDS = {
    "named": Style("named", "every sentence names its subject"),
    "quiet": Style("quiet", "follow-ups not naming their subject, said elsewhere; entries "
                   "without a subject", unnamed_follow_ups=0.7, away=0.4, unnamed_entries=0.3),
    "paraphrase": Style("paraphrase", "follow-ups in other words (two words shared), "
                        "look-alikes one noun apart", unnamed_follow_ups=0.3,
                        paraphrase=0.6, lookalikes=0.35),
}


@dataclass
class Statement:
    """One user message and what it means."""

    n: int
    day: int
    kind: str  # fact task decision question preference done answer correction talk
    text: str
    subject: str | None = None
    key: str | None = None  # the named thing it is about (same key: the same thing)
    value: str | None = None  # what it says of it (same key and value: the same fact)
    target: int | None = None  # for a follow-up: the statement it closes or corrects
    session: str = ""  # the OpenClaw sessionId of its conversation

    @property
    def follow_up(self) -> bool:
        return self.target is not None

    @property
    def content(self) -> str:
        return content_of(self.text)


@dataclass
class Conversation:
    day: int
    session: str
    start: datetime
    turns: list[tuple[str, str]] = field(default_factory=list)  # ("user"|"assistant", text)
    statements: list[Statement] = field(default_factory=list)


@dataclass
class Year:
    seed: int
    days: list[list[Conversation]]  # days[0] is day 1
    statements: list[Statement]
    subjects: dict[str, str]  # slug -> display name
    recurring: list[str]  # the recurring subjects' slugs, busiest first
    vpn: tuple[int, int] | None  # (statement n first said, statement n of the change)
    world: str = "named"

    def date(self, day: int) -> datetime:
        return START + timedelta(days=day - 1)


class _Builder:
    def __init__(self, seed: int, style: Style | None = None):
        self.rng = random.Random(seed)
        self.seed = seed
        self.style = style or WORLDS["named"]
        self.talk = random.Random(seed + 2)  # the style's own draws
        self.bare: set[str] = set()  # sentences said without a subject, never twice
        self.statements: list[Statement] = []
        self.subjects: dict[str, str] = {}
        self.used: set[tuple] = set()  # (subject, thing) already said, to keep them distinct
        self.due: dict[int, list[Statement]] = {}  # day -> follow-ups said that day

    # -- subjects

    def recurring_subjects(self) -> list[str]:
        rng = self.rng
        names = [f"{c} {k}" for c, k in zip(rng.sample(CODENAMES, 34),
                                            rng.choices(PROJECT_KINDS, k=34), strict=True)]
        names = names[:34] + list(PEOPLE) + ["Office Network"]
        rng.shuffle(names)
        slugs = []
        for display in names:
            slug = slugify(display)
            self.subjects[slug] = display
            slugs.append(slug)
        # the VPN's subject is busy enough to be in many conversations, not the busiest
        slugs.remove("office-network")
        slugs.insert(5, "office-network")
        return slugs

    def one_off(self) -> str:
        rng = self.rng
        while True:
            name = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).title()
            display = f"{name} {rng.choice(ONE_OFF_KINDS)}"
            if slugify(display) not in self.subjects:
                self.subjects[slugify(display)] = display
                return slugify(display)

    # -- statements

    def add(self, day: int, kind: str, text: str, **kw) -> Statement:
        statement = Statement(len(self.statements), day, kind, text, **kw)
        self.statements.append(statement)
        return statement

    def schedule(self, target: Statement, kind: str, text: str, lag: int, **kw) -> None:
        day = target.day + lag
        if day <= YEAR:
            follow = Statement(-1, day, kind, text, target=target.n, **kw)
            self.due.setdefault(day, []).append(follow)

    def chance(self, share: float) -> bool:
        return share > 0 and self.talk.random() < share

    def unnamed(self, text: str, display: str) -> str:
        """``text`` without " for <display>" (the subject), or ``text`` when that sentence
        was already said without one (two entries must not say the same words)."""
        bare = text.replace(f" for {display}", "")
        if bare == text or bare in self.bare:
            return text
        self.bare.add(bare)
        return bare

    def follow(self, named: str, display: str, paraphrased: str) -> str:
        """A follow-up's words in this world: ``named`` or ``paraphrased`` (a template of
        ``{where}``), perhaps without the subject."""
        other = self.chance(self.style.paraphrase)
        bare = self.chance(self.style.unnamed_follow_ups)
        if other:
            return paraphrased.format(where="" if bare else f" for {display}")
        return named.replace(f" for {display}", "") if bare else named

    def lag(self) -> int:
        low, high = self.rng.choices(LAG_BUCKETS, weights=(4, 3, 3))[0]
        return self.rng.randint(low, high)

    def unused(self, draw) -> tuple | None:
        """``draw()`` -> (key, parts...) until its key was never said (20 tries), the key then
        taken; None when the subject has run out of them."""
        for _ in range(20):
            key, *parts = draw()
            if key not in self.used:
                self.used.add(key)
                return key, *parts
        return None

    def fact(self, day: int, slug: str) -> Statement | None:
        rng = self.rng

        def draw():
            qualifier, measure = rng.choice(QUALIFIERS), rng.choice(MEASURES)
            if qualifier in measure[0].split():  # never "the replica replica count": the next
                qualifier = QUALIFIERS[(QUALIFIERS.index(qualifier) + 1) % len(QUALIFIERS)]
            return f"{slug}|{qualifier} {measure[0]}", qualifier, *measure

        found = self.unused(draw)
        if found is None:
            return None
        key, qualifier, thing, unit, low, high = found
        value = str(rng.randint(low, high))
        display = self.subjects[slug]
        template = f"The {qualifier} {thing} for {display} is {{}} {unit}."
        said = self.add(day, "fact", template.format(value), subject=slug, key=key, value=value)
        if rng.random() < 0.12:
            new = value
            while new == value:
                new = str(rng.randint(low, high))
            corrected = template.format(new)
            tail = " ".join(thing.split()[-2:])
            other = self.talk.choice(PARAPHRASED_CORRECTION).format(tail=tail, value=new,
                                                                   where="{where}")
            text = self.follow(f"Actually, {corrected[0].lower()}{corrected[1:]}", display,
                               other)
            self.schedule(said, "correction", text, self.lag(), subject=slug, key=key,
                          value=new)
        return said

    def task(self, day: int, slug: str) -> Statement | None:
        rng = self.rng

        alike = self.chance(self.style.lookalikes)

        def draw():
            (verb, gerund), thing = rng.choice(TASK_VERBS), rng.choice(OBJECTS)
            if alike:
                thing = self.talk.choice(LOOKALIKE_OBJECTS)
            return f"{slug}|{verb} {thing}", verb, gerund, thing

        found = self.unused(draw)
        if found is None:
            return None
        key, verb, gerund, thing = found
        display = self.subjects[slug]
        text = f"We need to {verb} the {thing} for {display}."
        if self.chance(self.style.unnamed_entries):
            text = self.unnamed(text, display)
        said = self.add(day, "task", text, subject=slug, key=key, value="open")
        if rng.random() < 0.4:
            tail = " ".join(thing.split()[-2:])
            other = self.talk.choice(PARAPHRASED_DONE).format(tail=tail, where="{where}")
            self.schedule(said, "done",
                          self.follow(f"{gerund} the {thing} for {display} is done.", display,
                                      other),
                          self.lag(), subject=slug, key=key, value="done")
        return said

    def question(self, day: int, slug: str) -> Statement | None:
        rng = self.rng

        def draw():
            choice, thing = rng.choice(list(CHOICES)), rng.choice(OBJECTS)
            return f"{slug}|{choice} for the {thing}", choice, thing

        found = self.unused(draw)
        if found is None:
            return None
        key, choice, thing = found
        display = self.subjects[slug]
        text = f"Which {choice} should the {thing} for {display} use?"
        if self.chance(self.style.unnamed_entries):
            text = self.unnamed(text, display)
        said = self.add(day, "question", text, subject=slug, key=key)
        if rng.random() < 0.4:
            option = rng.choice(CHOICES[choice])
            tail = " ".join(thing.split()[-2:])
            other = self.talk.choice(PARAPHRASED_ANSWER).format(option=option, tail=tail,
                                                               where="{where}")
            self.schedule(said, "answer",
                          self.follow(f"We went with {option} as the {choice} for the {thing} "
                                      f"for {display}.", display, other),
                          self.lag(), subject=slug, key=key, value=option)
        return said

    def decision(self, day: int, slug: str) -> Statement:
        rng = self.rng
        verb, thing, when = rng.choice(DECISION_VERBS), rng.choice(OBJECTS), rng.choice(WHENS)
        display = self.subjects[slug]
        return self.add(day, "decision",
                        f"We decided to {verb} the {thing} for {display} {when}.",
                        subject=slug, key=f"{slug}|{verb} {thing} {when}", value=when)

    def new_statement(self, day: int, slug: str) -> Statement | None:
        kind = self.rng.choices(("fact", "task", "decision", "question", "talk"),
                                weights=(28, 22, 12, 16, 18))[0]
        if kind == "talk":
            return self.add(day, "talk", self.rng.choice(SMALL_TALK))
        return getattr(self, kind)(day, slug)

    def preference_days(self) -> dict[int, list[tuple[int, int]]]:
        """day -> (preference, paraphrase) said that day: each preference first said in the
        first month, its restatements spread over the year."""
        rng = self.rng
        plan: dict[int, list[tuple[int, int]]] = {}
        firsts = []
        for p in range(len(PREFERENCES)):
            first = rng.randint(1, 30)
            firsts.append(first)
            plan.setdefault(first, []).append((p, 0))
        for _ in range(RESTATEMENTS):
            p = rng.randrange(len(PREFERENCES))
            day = rng.randint(firsts[p] + 1, YEAR)
            plan.setdefault(day, []).append((p, rng.randrange(len(PREFERENCES[p]))))
        return plan


def build(seed: int = 7, world: str = "named") -> Year:
    """The whole year of ``world`` (:data:`WORLDS`), drawn from ``seed``."""
    b = _Builder(seed, WORLDS[world])
    rng = b.rng
    recurring = b.recurring_subjects()
    weights = [1.0 / (i + 3) for i in range(len(recurring))]
    preferences = b.preference_days()
    days: list[list[Conversation]] = []
    vpn_first = vpn_change = None
    ids = random.Random(seed + 1)
    for day in range(1, YEAR + 1):
        date = START + timedelta(days=day - 1)
        count = rng.randint(3, 5)
        hours = sorted(rng.sample(range(8, 21), count))
        conversations = []
        for hour in hours:
            session = str(uuid.UUID(int=ids.getrandbits(128), version=4))
            start = date + timedelta(hours=hour, minutes=rng.randint(0, 40))
            focus = rng.choices(recurring, weights=weights, k=rng.choice((1, 1, 2)))
            conversations.append((Conversation(day, session, start), focus,
                                  rng.randint(4, 10)))
        if rng.random() < 0.8:  # a one-off subject in one of the day's conversations
            conversations[rng.randrange(count)][1].append(b.one_off())
        # what must be said today: follow-ups that fall due, preferences
        owed: list[Statement] = []
        for follow in b.due.pop(day, []):
            follow.n = len(b.statements)
            b.statements.append(follow)
            owed.append(follow)
        for p, variant in preferences.get(day, []):
            owed.append(b.add(day, "preference", PREFERENCES[p][variant], key=f"preference {p}",
                              value="-"))
        if day == VPN_SAID:  # the planted fact: the VPN port, changed ~90 days later
            owed.append(b.add(day, "fact", "The VPN port for Office Network is 51820.",
                              subject="office-network", key="office-network|VPN port",
                              value="51820"))
            vpn_first = owed[-1].n
            b.schedule(owed[-1], "correction",
                       "Actually, the VPN port for Office Network is 51900.",
                       VPN_CHANGE_LAG, subject="office-network",
                       key="office-network|VPN port", value="51900")
        vpn_due = [s for s in owed if s.key == "office-network|VPN port" and s.follow_up]
        if vpn_due:
            vpn_change = vpn_due[0].n
        placed: list[list[Statement]] = [[] for _ in conversations]
        for statement in owed:
            near = [i for i, (_, focus, _) in enumerate(conversations)
                    if statement.subject in focus]
            if statement.follow_up and b.chance(b.style.away):
                near = [i for i, (_, focus, _) in enumerate(conversations)
                        if statement.subject not in focus] or near
            placed[rng.choice(near) if near else rng.randrange(count)].append(statement)
        for (conversation, focus, exchanges), said in zip(conversations, placed, strict=True):
            while len(said) < exchanges:
                made = b.new_statement(day, rng.choice(focus))
                if made is not None:
                    said.insert(rng.randint(0, len(said)), made)
            for statement in said:
                statement.session = conversation.session
                conversation.statements.append(statement)
                conversation.turns.append(("user", statement.text))
                display = b.subjects.get(statement.subject or focus[0], "that")
                reply = rng.choice(REPLIES).format(s=display) + rng.choice(REPLY_TAILS)
                conversation.turns.append(("assistant", reply))
        days.append([c for c, _, _ in conversations])
    b.statements.sort(key=lambda s: s.n)
    return Year(seed, days, b.statements, b.subjects, recurring,
                (vpn_first, vpn_change) if vpn_first is not None else None, world)
