from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction
from django.utils import timezone
from redis.exceptions import RedisError

from memoryadmin.audit.services import Actor
from memoryadmin.conversations import records as conversation_records
from memoryadmin.conversations.models import Message, MessageKind, Session
from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.conversations.signals import messages_appended
from memoryadmin.conversations.working_memory import working_memory_put
from memoryadmin.core.bulk import next_ids
from memoryadmin.extraction.receivers import schedule_after_append
from memoryadmin.extraction.services import extraction_schedule_after_append
from memoryadmin.memories.models import Memory, MemorySource, MemoryType
from memoryadmin.memories.services import NewMemory, WriteResult, memory_create_many, memory_forget, memory_update
from memoryadmin.tenancy.models import Namespace
from memoryadmin.tenancy.services import namespace_create, operator_create

NAMESPACES = [
    ("support-bot", "Support assistant", False),
    ("travel-agent", "Travel planner", True),
    ("fitness-coach", "Fitness coach", False),
]
OPERATORS = [
    ("admin", "admin", "admin-demo-pass"),
    ("olivia", "operator", "operator-demo-pass"),
    ("victor", "viewer", "viewer-demo-pass"),
]

FIRST_NAMES = [
    "Alice",
    "Bob",
    "Chiara",
    "Dmitri",
    "Esther",
    "Farid",
    "Grace",
    "Hiro",
    "Ines",
    "Jonas",
    "Kemi",
    "Lars",
    "Maya",
    "Nikhil",
    "Olga",
    "Pablo",
    "Qing",
    "Rosa",
    "Sami",
    "Tara",
    "Umar",
    "Vera",
    "Wen",
    "Ximena",
    "Yusuf",
]


def _a(noun: str) -> str:
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"


CITIES = ["Lyon", "Berlin", "Lisbon", "Osaka", "Toronto", "Nairobi", "Austin", "Porto", "Seoul", "Melbourne"]
EMPLOYERS = ["Acme Corp", "a small bakery", "the city hospital", "a robotics startup", "a law firm", "the university"]
JOBS = ["nurse", "data engineer", "teacher", "product designer", "accountant", "carpenter"]
LIKES = [
    "window seats",
    "vegetarian food",
    "early morning flights",
    "trail running",
    "jazz",
    "quiet hotels",
    "espresso",
    "yoga",
    "museums",
    "spicy ramen",
    "cycling to work",
    "strength training",
]
DISLIKES = ["layovers", "loud restaurants", "cold weather", "long meetings", "treadmills", "cilantro"]
PETS = ["a cat named Miso", "a dog named Pixel", "two goldfish"]
TOPICS = {
    "support-bot": ["billing", "account", "shipping", "product"],
    "travel-agent": ["travel", "flights", "hotels"],
    "fitness-coach": ["fitness", "nutrition", "sleep"],
}
ASSISTANT_LINES = [
    "Thanks, I've noted that.",
    "Got it. Anything else I can help with?",
    "Understood. Let me look into it.",
    "Sure, here is what I found.",
    "That makes sense. I'll keep it in mind.",
    "Happy to help with that.",
]
QUESTIONS = [
    "Can you check my last order?",
    "What are my options for next week?",
    "How do I reset my password?",
    "Could you suggest a plan for tomorrow?",
    "What did we decide last time?",
    "Is there a cheaper option?",
]


def user_facts(rng: random.Random, name: str) -> list[tuple[str, str, str]]:
    """(what the user says, the memory text, its type) for one person."""
    city, employer, job = rng.choice(CITIES), rng.choice(EMPLOYERS), rng.choice(JOBS)
    like, like2, dislike, pet = rng.sample(LIKES, 1)[0], rng.sample(LIKES, 1)[0], rng.choice(DISLIKES), rng.choice(PETS)
    return [
        (f"Hi, my name is {name}.", f"User's name is {name}", MemoryType.SEMANTIC),
        (f"I live in {city}.", f"User lives in {city}", MemoryType.SEMANTIC),
        (
            f"I work at {employer} as {_a(job)}.",
            f"User works at {employer} as {_a(job)}",
            MemoryType.SEMANTIC,
        ),
        (f"I really love {like}.", f"User loves {like}", MemoryType.PREFERENCE),
        (f"I prefer {like2}.", f"User prefers {like2}", MemoryType.PREFERENCE),
        (f"I hate {dislike}.", f"User dislikes {dislike}", MemoryType.PREFERENCE),
        (f"I have {pet}.", f"User has {pet}", MemoryType.SEMANTIC),
    ]


def message_record(message_id: int, seq: int, message: NewMessage, now: datetime) -> dict[str, Any]:
    """A message as the conversations app's bulk insert takes it."""
    return {
        "id": message_id,
        "seq": seq,
        "role": message.role,
        "kind": message.kind,
        "content": message.content,
        "name": message.name,
        "run_id": message.run_id,
        "tool_calls": message.tool_calls,
        "tool_call_id": message.tool_call_id,
        "metadata": message.metadata,
        "created_at": now,
        "persisted_at": now,
        "extracted_at": None,
    }


def broker_problem() -> str | None:
    """Why Celery cannot publish a task (its broker is down, or its transport does not load), or None."""
    from memoryadmin.celery import app

    try:
        with app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=2)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


# How extraction's app config connects its receiver.
SCHEDULE_AFTER_APPEND = "extraction.schedule_after_append"


@contextmanager
def extraction_not_scheduled() -> Iterator[None]:
    """Appends that schedule no extraction: with no broker, each would fail, and log why, on its own."""
    messages_appended.disconnect(dispatch_uid=SCHEDULE_AFTER_APPEND)
    try:
        yield
    finally:
        messages_appended.connect(schedule_after_append, dispatch_uid=SCHEDULE_AFTER_APPEND)


class Command(BaseCommand):
    help = "Load realistic demo data (namespaces, operators, sessions, messages, memories). Idempotent."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--users", type=int, default=50)
        parser.add_argument("--sessions", type=int, default=500)
        parser.add_argument("--messages-per-session", type=int, default=20)
        parser.add_argument("--memories", type=int, default=3000)

    def handle(self, *args: Any, **options: Any) -> None:
        actor = Actor.system("seed_demo")
        for username, role, password in OPERATORS:
            if not User.objects.filter(username=username).exists():
                operator_create(username=username, role=role, password=password, actor=actor)
        if Namespace.objects.filter(slug=NAMESPACES[0][0]).exists():
            self.stdout.write("Demo data already present; nothing to do.")
            return
        started = time.monotonic()
        problem = broker_problem()
        if problem is not None:
            self.stderr.write(
                f"Celery's broker cannot be used ({problem}): the demo is seeded without scheduling the "
                "extraction of its sessions; nothing is extracted, erased or restored until the broker works."
            )
        # All or nothing: a seed that stopped half-way would pass for a complete one next time. The
        # sessions' extraction is scheduled once this commits, as an append's is.
        with extraction_not_scheduled() if problem else nullcontext(), transaction.atomic():
            namespaces, users, evidence, sessions = self._sessions(options, actor)
            rng = random.Random(options["seed"] + 1)
            created = self._memories(rng, namespaces, users, evidence, options["memories"], actor)
            to_forget = Memory.objects.filter(source=MemorySource.API, pin__isnull=True).order_by("id")
            for memory in to_forget[: max(1, options["memories"] // 50)]:
                memory_forget(memory=memory, actor=actor, reason="demo: user asked to forget this")
            self._revise(rng)
            self._tool_sessions(namespaces, users)
        if problem is None and (stopped := self._schedule_extraction(sessions)):
            self.stderr.write(
                f"Scheduling the demo sessions' extraction stopped ({stopped}): the rest stays unextracted "
                "until a new message arrives in it."
            )
        self._working_memory()
        per_session = options["messages_per_session"]
        self.stdout.write(
            f"Seeded {len(namespaces)} namespaces, {len(users)} users, {options['sessions']} sessions, "
            f"{options['sessions'] * per_session} messages, {created} memories "
            f"in {time.monotonic() - started:.1f}s."
        )

    def _sessions(
        self, options: dict[str, Any], actor: Actor
    ) -> tuple[list[Namespace], list[tuple[Namespace, str, str]], list[tuple[Namespace, NewMemory]], list[Session]]:
        """The namespaces, their users, their sessions, and what the users said that is worth remembering.

        The sessions go in as one insert per namespace and their messages as one COPY, through the
        conversations app's bulk writes (those a snapshot restore uses).
        """
        rng = random.Random(options["seed"])
        namespaces = [
            namespace_create(slug=slug, name=name, review_required=review, actor=actor)
            for slug, name, review in NAMESPACES
        ]
        users = [
            (rng.choice(namespaces), f"user-{i:03d}", FIRST_NAMES[i % len(FIRST_NAMES)])
            for i in range(options["users"])
        ]
        facts = {user_id: user_facts(rng, name) for _, user_id, name in users}
        per_session = options["messages_per_session"]
        now = timezone.now()
        planned = []
        for s in range(options["sessions"]):
            namespace, user_id, _name = users[s % len(users)]
            said = []
            batch = [NewMessage(role="system", kind=MessageKind.INSTRUCTION, content="Be concise and friendly.")]
            while len(batch) < per_session:
                if rng.random() < 0.35:
                    text, memory_text, memory_type = rng.choice(facts[user_id])
                    said.append((len(batch), memory_text, memory_type))
                else:
                    text = rng.choice(QUESTIONS)
                batch.append(NewMessage(role="user", content=text, run_id=f"run-{s}"))
                batch.append(NewMessage(role="assistant", content=rng.choice(ASSISTANT_LINES), run_id=f"run-{s}"))
            batch = batch[:per_session]
            session = {
                "session_id": f"sess-{s:04d}",
                "user_id": user_id,
                "agent_id": "demo-agent",
                "metadata": {},
                "message_count": len(batch),
                "created_at": now,
                "updated_at": now,
                "last_message_at": now,
            }
            planned.append((namespace, session, batch, [x for x in said if x[0] < len(batch)]))

        pks: dict[tuple[int, str], int] = {}
        for namespace in namespaces:
            records = [session for ns, session, _, _ in planned if ns == namespace]
            if records:
                written = conversation_records.sessions_restore_insert(namespace, records)
                pks.update({(namespace.pk, session_id): pk for session_id, pk in written.items()})
        ids = iter(next_ids(Message._meta.db_table, sum(len(batch) for _, _, batch, _ in planned)))
        rows: list[tuple[int, dict[str, Any]]] = []
        evidence: list[tuple[Namespace, NewMemory]] = []
        for namespace, session, batch, said in planned:
            session_pk = pks[(namespace.pk, session["session_id"])]
            message_ids = [next(ids) for _ in batch]
            rows += [
                (session_pk, message_record(message_id, seq, message, now))
                for seq, (message_id, message) in enumerate(zip(message_ids, batch, strict=True), start=1)
            ]
            evidence += [
                (
                    namespace,
                    NewMemory(
                        user_id=session["user_id"],
                        text=memory_text,
                        memory_type=memory_type,
                        session_id=session["session_id"],
                        source=MemorySource.EXTRACTION,
                        evidence_message_ids=[message_ids[index]],
                    ),
                )
                for index, memory_text, memory_type in said
            ]
        conversation_records.messages_restore_insert(rows)
        sessions = list(Session.objects.filter(pk__in=pks.values()).select_related("namespace").order_by("pk"))
        return namespaces, users, evidence, sessions

    def _schedule_extraction(self, sessions: list[Session]) -> str | None:
        """What an append does once it commits: the session's debounced extraction. Why it stopped, if it did."""
        for session in sessions:
            try:
                extraction_schedule_after_append(
                    namespace_id=session.namespace_id,
                    session_pk=session.pk,
                    strategy=session.namespace.extraction_strategy,
                )
            except Exception as exc:
                return f"{type(exc).__name__}: {exc}"
        return None

    def _memories(
        self,
        rng: random.Random,
        namespaces: list[Namespace],
        users: list[tuple[Namespace, str, str]],
        evidence: list[tuple[Namespace, NewMemory]],
        wanted: int,
        actor: Actor,
    ) -> int:
        """What extraction found in the sessions, then other memories up to `wanted`: a batch per namespace."""
        now = timezone.now()
        # What happened, in words that fit what it is about; the day it happened makes each one its own.
        episodes = {
            **dict.fromkeys(CITIES, ("asked about flights to {x}", "booked a hotel in {x}", "got back from {x}")),
            **dict.fromkeys(LIKES, ("asked for options with {x}", "said {x} made the trip", "asked again for {x}")),
            **dict.fromkeys(DISLIKES, ("complained about {x}", "asked to avoid {x}", "was unhappy about {x}")),
        }

        def dated(namespace: Namespace, new: NewMemory) -> tuple[Namespace, NewMemory]:
            new.topics = [rng.choice(TOPICS[namespace.slug])]
            if new.created_at is None:
                new.created_at = now - timedelta(days=rng.randint(0, 700))
            return namespace, new

        def others(count: int) -> list[tuple[Namespace, NewMemory]]:
            items = []
            for _ in range(count):
                namespace, user_id, _name = rng.choice(users)
                thing = rng.choice(LIKES + DISLIKES + CITIES)
                when = now - timedelta(days=rng.randint(0, 700))
                new = NewMemory(
                    user_id=user_id,
                    text=f"User {rng.choice(episodes[thing]).format(x=thing)} on {when.day} {when:%B %Y}",
                    memory_type=rng.choice([MemoryType.EPISODIC, MemoryType.EPISODIC, MemoryType.SEMANTIC]),
                    entities=[thing],
                    pinned=rng.random() < 0.05,
                    created_at=when,
                )
                items.append(dated(namespace, new))
            return items

        pending = [dated(namespace, new) for namespace, new in evidence]
        created = 0
        while True:
            for namespace in namespaces:
                items = [new for ns, new in pending if ns == namespace]
                if items:
                    results = memory_create_many(namespace=namespace, actor=actor, items=items)
                    created += sum(1 for result in results if isinstance(result, WriteResult) and result.created)
            # Duplicates (the same fact said twice, the same episode drawn twice) create nothing: draw again.
            if created >= wanted:
                return created
            pending = others(wanted - created)

    def _revise(self, rng: random.Random) -> None:
        """Operators corrected some memories, so their pages show revisions and a diff."""
        olivia = Actor.operator("olivia")
        refinements = [
            ("User lives in ", ", near the old town", "moved within the city"),
            ("User loves ", " on weekends", "only on weekends, per the user"),
            ("User works at ", " (part time)", "the user works part time"),
        ]
        for prefix, suffix, reason in refinements:
            candidates = Memory.objects.filter(text__startswith=prefix, status="active").order_by("id")[:8]
            for memory in candidates:
                if rng.random() < 0.75:
                    memory_update(memory=memory, actor=olivia, text=memory.text + suffix, reason=reason)

    def _tool_sessions(self, namespaces: list[Namespace], users: list[tuple[Namespace, str, str]]) -> None:
        """One session per namespace where the agent calls a tool, with injected guidance in between."""
        for namespace in namespaces:
            person = next((u for u in users if u[0] == namespace), None)
            if person is None:
                continue  # a small demo (--users) may leave a namespace without people
            _, user_id, name = person
            call = {
                "id": f"call-{namespace.slug}",
                "type": "function",
                "function": {"name": "lookup_profile", "arguments": json.dumps({"user_id": user_id})},
            }
            session_append_messages(
                namespace=namespace,
                session_id=f"tools-{namespace.slug}",
                user_id=user_id,
                agent_id="demo-agent",
                messages=[
                    NewMessage(role="system", kind=MessageKind.INSTRUCTION, content="Use tools before guessing."),
                    NewMessage(role="user", content=f"Hi, it's {name}. What do you know about me?"),
                    NewMessage(role="assistant", content="Let me check your profile.", tool_calls=[call]),
                    NewMessage(
                        role="tool",
                        content=json.dumps({"name": name, "plan": "pro", "since": "2023-04-01"}),
                        tool_call_id=call["id"],
                        name="lookup_profile",
                    ),
                    NewMessage(
                        role="system",
                        kind=MessageKind.SUPPORTING_CONTEXT,
                        content="Profile data is current as of this morning.",
                    ),
                    NewMessage(role="assistant", content=f"You are on the pro plan since April 2023, {name}."),
                    NewMessage(role="user", content="Great. I prefer answers in French from now on."),
                ],
            )

    def _working_memory(self) -> None:
        """The most recent sessions hold some volatile state, with a TTL counting down."""
        try:
            for session in Session.objects.select_related("namespace").order_by("-last_activity_at")[:12]:
                working_memory_put(
                    namespace_id=session.namespace_id,
                    session_id=session.session_id,
                    state={"step": "checkout", "cart": ["espresso beans"], "locale": "fr-FR"},
                    ttl_seconds=session.namespace.working_memory_ttl_seconds,
                )
        except RedisError as exc:
            self.stderr.write(f"Working memory skipped, Redis is not answering: {exc}")
