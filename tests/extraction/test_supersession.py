"""Knowledge updates through extraction: a newer statement of the same attribute supersedes the older one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.extraction.services import extraction_run, extraction_schedule
from memoryadmin.memories.models import Memory, MemoryStatus
from memoryadmin.memories.queries import memories_search, session_context
from memoryadmin.memories.services import memory_approve, memory_forget
from tests.conftest import SYSTEM

T0 = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)


def say_at(namespace, when: datetime, text: str, *, name: str = "", session_id: str = "s1", user_id: str = "alice"):
    session, said = session_append_messages(
        namespace=namespace,
        session_id=session_id,
        user_id=user_id,
        messages=[NewMessage(role="user", name=name, content=text, created_at=when)],
    )
    run = extraction_run(run=extraction_schedule(session=session, delay=0))
    return run, said[0]


def memory(namespace, text: str) -> Memory:
    return Memory.objects.get(namespace=namespace, text=text)


def current(namespace, query: str, user_id: str = "alice") -> list[str]:
    return [h.memory.text for h in memories_search(namespace, query=query, user_id=user_id).items]


def test_a_move_supersedes_where_they_lived_and_the_old_fact_stays_as_history(offline_namespace) -> None:
    say_at(offline_namespace, T0, "I live in Lyon.")
    run, _ = say_at(offline_namespace, T0 + timedelta(days=30), "I moved to Paris last week!")
    lyon = memory(offline_namespace, "User lives in Lyon")
    paris = Memory.objects.get(namespace=offline_namespace, attribute="residence", status=MemoryStatus.ACTIVE)
    assert paris.text.startswith("User moved to Paris")
    assert (lyon.status, lyon.superseded_by, lyon.attribute) == (MemoryStatus.SUPERSEDED, paris.pk, "residence")
    assert lyon.superseded_at is not None
    assert run.counts["superseded"] == 1
    # Search and context return what is current; history is found only when asked for.
    assert current(offline_namespace, "Lyon Paris lives moved") == [paris.text]
    assert [h.memory.text for h in memories_search(offline_namespace, query="Lyon", status="superseded").items] == [
        "User lives in Lyon"
    ]
    context = session_context(offline_namespace, paris.evidence.first().message.session, query="where does User live")
    assert "User lives in Lyon" not in [m.text for m in context.memories]


def test_a_new_car_supersedes_the_old_one_and_is_no_near_duplicate_of_it(offline_namespace) -> None:
    say_at(offline_namespace, T0, "I drive a 2019 Honda Civic")
    say_at(offline_namespace, T0 + timedelta(days=400), "I drive a 2021 Honda Civic")
    old = memory(offline_namespace, "User drives a 2019 Honda Civic")
    new = memory(offline_namespace, "User drives a 2021 Honda Civic")
    assert (old.status, old.superseded_by) == (MemoryStatus.SUPERSEDED, new.pk)
    assert new.status == MemoryStatus.ACTIVE
    # Two memories, each with its own message: the second was not merged into the first.
    assert old.evidence.count() == new.evidence.count() == 1


def test_a_superseded_fact_said_again_is_current_again_only_when_it_is_the_newest(offline_namespace) -> None:
    say_at(offline_namespace, T0, "I live in Lyon.")
    say_at(offline_namespace, T0 + timedelta(days=30), "I live in Paris.")
    lyon, paris = memory(offline_namespace, "User lives in Lyon"), memory(offline_namespace, "User lives in Paris")
    assert (lyon.status, paris.status) == (MemoryStatus.SUPERSEDED, MemoryStatus.ACTIVE)

    # An older message saying Lyon, extracted late (a backfill): Paris is still the newest statement.
    say_at(offline_namespace, T0 + timedelta(days=10), "I live in Lyon.", session_id="backfill")
    lyon.refresh_from_db()
    paris.refresh_from_db()
    assert (lyon.status, paris.status) == (MemoryStatus.SUPERSEDED, MemoryStatus.ACTIVE)
    assert lyon.evidence.count() == 2  # the duplicate still links its message
    assert current(offline_namespace, "Lyon Paris") == ["User lives in Paris"]

    # Said again after Paris: Lyon is current again, Paris history.
    run, _ = say_at(offline_namespace, T0 + timedelta(days=60), "I live in Lyon.")
    lyon.refresh_from_db()
    paris.refresh_from_db()
    assert (lyon.status, lyon.superseded_by, lyon.superseded_at) == (MemoryStatus.ACTIVE, None, None)
    assert (paris.status, paris.superseded_by) == (MemoryStatus.SUPERSEDED, lyon.pk)
    assert lyon.stated_at == T0 + timedelta(days=60)
    assert (run.counts["duplicates"], run.counts["superseded"]) == (1, 1)
    assert current(offline_namespace, "Lyon Paris") == ["User lives in Lyon"]


def test_each_speaker_of_a_group_chat_has_their_own_history(offline_namespace) -> None:
    say_at(offline_namespace, T0, "I live in Lyon.", name="Evan", user_id="club")
    say_at(offline_namespace, T0 + timedelta(days=1), "I live in Oslo.", name="Sam", user_id="club")
    say_at(offline_namespace, T0 + timedelta(days=2), "I live in Rome.", name="Evan", user_id="club")
    statuses = dict(Memory.objects.filter(namespace=offline_namespace).values_list("text", "status"))
    assert statuses == {
        "Evan lives in Lyon": MemoryStatus.SUPERSEDED,
        "Sam lives in Oslo": MemoryStatus.ACTIVE,
        "Evan lives in Rome": MemoryStatus.ACTIVE,
    }


def test_other_attributes_and_other_people_are_left_alone(offline_namespace) -> None:
    say_at(offline_namespace, T0, "I live in Lyon.")
    say_at(offline_namespace, T0, "I live in Oslo.", user_id="bob", session_id="s-bob")
    say_at(offline_namespace, T0 + timedelta(days=1), "I work at Acme.")
    say_at(offline_namespace, T0 + timedelta(days=2), "I went to Paris last week.")
    assert set(Memory.objects.filter(namespace=offline_namespace).values_list("status", flat=True)) == {"active"}


def test_a_candidate_supersedes_only_once_approved(make_namespace) -> None:
    namespace = make_namespace("reviewed", review_required=True)
    say_at(namespace, T0, "I live in Lyon.")
    lyon = memory(namespace, "User lives in Lyon")
    memory_approve(memory=lyon, actor=SYSTEM)
    say_at(namespace, T0 + timedelta(days=5), "I live in Paris.")
    paris = memory(namespace, "User lives in Paris")
    lyon.refresh_from_db()
    assert (lyon.status, paris.status) == (MemoryStatus.ACTIVE, MemoryStatus.CANDIDATE)
    approved = memory_approve(memory=paris, actor=SYSTEM)
    lyon.refresh_from_db()
    assert (approved.status, lyon.status, lyon.superseded_by) == (
        MemoryStatus.ACTIVE,
        MemoryStatus.SUPERSEDED,
        paris.pk,
    )


def test_forgetting_the_current_fact_leaves_the_history_as_history(offline_namespace) -> None:
    say_at(offline_namespace, T0, "I live in Lyon.")
    say_at(offline_namespace, T0 + timedelta(days=5), "I live in Paris.")
    paris = memory(offline_namespace, "User lives in Paris")
    memory_forget(memory=paris, actor=SYSTEM)
    lyon = memory(offline_namespace, "User lives in Lyon")
    # Lyon was replaced; that the replacement has since been forgotten does not make Lyon true again.
    assert (lyon.status, lyon.superseded_by) == (MemoryStatus.SUPERSEDED, paris.pk)
    assert current(offline_namespace, "Lyon Paris") == []


def test_leaving_something_by_its_name_replaces_the_facts_that_name_it(offline_namespace) -> None:
    """A bank moved from, named only: an update whoever the new one is ("moved my account from Barclays")."""
    say_at(offline_namespace, T0, "I bank with Barclays and I love hiking")
    barclays = Memory.objects.get(namespace=offline_namespace, text__contains="Barclays")
    assert barclays.attribute == "bank"
    run, said = say_at(
        offline_namespace, T0 + timedelta(days=30), "I've moved my current account from Barclays to Monzo"
    )
    barclays.refresh_from_db()
    monzo = Memory.objects.get(namespace=offline_namespace, evidence__message=said)
    assert (barclays.status, barclays.superseded_by) == (MemoryStatus.SUPERSEDED, monzo.pk)
    assert run.counts["superseded"] == 1


def test_what_someone_else_left_or_a_trip_away_replaces_nothing(offline_namespace) -> None:
    say_at(offline_namespace, T0, "I bank with Barclays and I love hiking")
    say_at(offline_namespace, T0, "I live in Paris with my cat")
    say_at(offline_namespace, T0 + timedelta(days=30), "My sister switched from Barclays to Monzo")
    say_at(offline_namespace, T0 + timedelta(days=31), "I left Paris for a week, the beach was lovely")
    say_at(offline_namespace, T0 + timedelta(days=32), "I might switch from Barclays to Monzo next year")
    assert not Memory.objects.filter(namespace=offline_namespace, status=MemoryStatus.SUPERSEDED).exists()


def test_what_is_gone_typed_in_lower_case_or_as_the_subject_replaces_the_facts_that_name_it(offline_namespace) -> None:
    """ "the ranger's gone mate", "We had to put Miso down": the thing named as chat types it, by whoever."""
    say_at(offline_namespace, T0, "got a ford ranger ute, white, bull bar, the works")
    say_at(offline_namespace, T0, "I have a cat called Miso, she's 17 and rules the house")
    ranger = Memory.objects.get(namespace=offline_namespace, text__contains="ranger")
    miso = Memory.objects.get(namespace=offline_namespace, text__contains="Miso")
    _, gone_ute = say_at(offline_namespace, T0 + timedelta(days=30), "the ranger's gone mate, picked up a hilux")
    _, gone_cat = say_at(offline_namespace, T0 + timedelta(days=31), "We had to put Miso down on Tuesday. So quiet.")
    for old, said in ((ranger, gone_ute), (miso, gone_cat)):
        old.refresh_from_db()
        assert old.status == MemoryStatus.SUPERSEDED, old.text
        assert Memory.objects.filter(pk=old.superseded_by, evidence__message=said).exists()


def test_a_fact_said_again_in_other_words_is_the_same_fact(offline_namespace) -> None:
    """ "My iPhone 14 battery is dying" names the phone the speaker has; "…, not 'the computer guy'" restates the job:
    neither replaces what it says again, whether the first was said in an earlier run or the same one."""
    say_at(offline_namespace, T0, "My phone's an iPhone 14.")
    _, again = say_at(offline_namespace, T0 + timedelta(days=30), "My iPhone 14 battery is dying so fast lately.")
    session, _ = session_append_messages(
        namespace=offline_namespace,
        session_id="s2",
        user_id="alice",
        messages=[
            NewMessage(role="user", content="I'm a software engineer.", created_at=T0),
            NewMessage(
                role="user",
                content="I'm a software engineer, not 'the computer guy', I keep telling my grandma.",
                created_at=T0 + timedelta(days=30),
            ),
        ],
    )
    extraction_run(run=extraction_schedule(session=session, delay=0))
    assert not Memory.objects.filter(namespace=offline_namespace, status=MemoryStatus.SUPERSEDED).exists()
    phone = Memory.objects.get(namespace=offline_namespace, attribute="phone")
    assert phone.evidence.filter(message=again).exists()


def test_a_pet_named_after_its_kind_keeps_its_name_and_is_gone_when_it_dies(offline_namespace) -> None:
    """ "I've got a golden retriever, Max.": ", Max" names the dog, it does not address someone called Max."""
    say_at(offline_namespace, T0, "I've got a golden retriever, Max.")
    max_ = Memory.objects.get(namespace=offline_namespace, text__contains="Max")
    _, said = say_at(offline_namespace, T0 + timedelta(days=30), "Max passed away in his sleep, he was 14.")
    max_.refresh_from_db()
    assert max_.status == MemoryStatus.SUPERSEDED
    assert Memory.objects.filter(pk=max_.superseded_by, evidence__message=said).exists()


def test_a_make_named_as_gone_replaces_the_model_it_made(offline_namespace) -> None:
    """ "Since the Mazda got written off" ends "I drive a Mazda3": a model's number may follow its make."""
    say_at(offline_namespace, T0, "I drive a Mazda3.")
    mazda = Memory.objects.get(namespace=offline_namespace, text__contains="Mazda3")
    say_at(
        offline_namespace,
        T0 + timedelta(days=30),
        "Since the Mazda got written off in that crash I've been taking the bus.",
    )
    mazda.refresh_from_db()
    assert mazda.status == MemoryStatus.SUPERSEDED


def test_a_word_no_fact_names_replaces_nothing(offline_namespace) -> None:
    say_at(offline_namespace, T0, "I work at Infosys in Hyderabad, testing team")
    say_at(offline_namespace, T0 + timedelta(days=30), "quit aldi lol, and my sister quit Infosys last week")
    assert not Memory.objects.filter(namespace=offline_namespace, status=MemoryStatus.SUPERSEDED).exists()


def test_a_statement_in_the_same_run_as_what_it_leaves_replaces_it(offline_namespace) -> None:
    session, _ = session_append_messages(
        namespace=offline_namespace,
        session_id="s2",
        user_id="alice",
        messages=[
            NewMessage(role="user", content="My GP is Dr. Patel at Riverside Surgery", created_at=T0),
            NewMessage(
                role="user",
                content="I left Dr. Patel and registered with Dr. Okafor",
                created_at=T0 + timedelta(days=9),
            ),
        ],
    )
    extraction_run(run=extraction_schedule(session=session, delay=0))
    old = Memory.objects.get(namespace=offline_namespace, text__contains="Riverside")
    assert old.status == MemoryStatus.SUPERSEDED
    assert "Okafor" in Memory.objects.get(pk=old.superseded_by).text


def test_leaving_beside_the_new_value_leaves_the_new_value_current(offline_namespace) -> None:
    """ "I quit St Mary's! Starting at Leeds General": the new employer is current, whichever memory id is larger; the
    leaving (said at the same moment) is no employer of its own."""
    say_at(offline_namespace, T0, "I work at St Mary's")
    _, said = say_at(
        offline_namespace,
        T0 + timedelta(days=40),
        "guess what, I quit St Mary's! starting at Leeds General next month as a charge nurse",
    )
    employer = Memory.objects.get(namespace=offline_namespace, attribute="employer", status=MemoryStatus.ACTIVE)
    assert "Leeds General" in employer.text
    old = Memory.objects.get(namespace=offline_namespace, text="User works at St Mary's")
    assert (old.status, old.superseded_by) == (MemoryStatus.SUPERSEDED, employer.pk)
    quit_ = Memory.objects.get(namespace=offline_namespace, evidence__message=said, text__contains="quit St")
    assert quit_.attribute != "employer"
    assert "Leeds General" in current(offline_namespace, "where does she work now?")[0]


def test_leaving_beside_the_new_value_becomes_no_value_of_another_attribute(offline_namespace) -> None:
    """ "I'm a nurse at St Mary's" states an occupation and an employer; "I quit St Mary's! Starting at Leeds
    General" replaces both, and the leaving is an episode, not the occupation now."""
    say_at(offline_namespace, T0, "I'm a nurse at St Mary's")
    say_at(offline_namespace, T0 + timedelta(days=50), "I quit St Mary's! Starting at Leeds General next month")
    quit_ = Memory.objects.get(namespace=offline_namespace, text__contains="quit St Mary's")
    assert (quit_.attribute, quit_.status) == ("", MemoryStatus.ACTIVE)
    for text in ("User is a nurse at St Mary's", "User works at St Mary's"):
        assert Memory.objects.get(namespace=offline_namespace, text=text).status == MemoryStatus.SUPERSEDED
    assert not Memory.objects.filter(
        namespace=offline_namespace, attribute="occupation", status=MemoryStatus.ACTIVE, text__contains="quit"
    ).exists()
    assert "Leeds General" in current(offline_namespace, "where does she work?")[0]


def test_after_a_move_the_question_asked_as_before_finds_where_they_live_now(offline_namespace) -> None:
    """ "Where does she live?" found "User lives in Leeds"; after the move the memory says "moved to": it is found."""
    say_at(offline_namespace, T0, "I live in Leeds.")
    assert current(offline_namespace, "Where does she live?") == ["User lives in Leeds"]
    say_at(offline_namespace, T0 + timedelta(days=30), "We finally moved to Manchester last month!")
    found = current(offline_namespace, "Where does she live?")
    assert found and "Manchester" in found[0]
    assert "User lives in Leeds" not in found


def test_a_name_typed_without_its_apostrophe_names_the_fact_that_has_it(offline_namespace) -> None:
    """ "cancelled golds finally" ends "Gold's Gym", as chat types it."""
    say_at(offline_namespace, T0, "my gym is Gold's Gym in Andheri, near the station")
    golds = Memory.objects.get(namespace=offline_namespace, text__contains="Gold's Gym")
    say_at(offline_namespace, T0 + timedelta(days=30), "cult.fit classes are way better, cancelled golds finally")
    golds.refresh_from_db()
    assert golds.status == MemoryStatus.SUPERSEDED


def test_a_relationship_that_ends_ends_the_partner_and_a_partner_named_ends_being_single(offline_namespace) -> None:
    """Facts of two attributes: "we broke up" makes "User's partner is Jake" history, as a new partner named makes
    "User is single" history; a status that keeps the partner ("we got engaged") leaves them current."""

    def stated_by(message, attribute: str) -> set:
        return set(
            Memory.objects.filter(
                namespace=offline_namespace, attribute=attribute, evidence__message=message
            ).values_list("pk", flat=True)
        )

    say_at(offline_namespace, T0, "My boyfriend is called Jake, we met at uni.")
    jake = Memory.objects.get(namespace=offline_namespace, attribute="partner", status=MemoryStatus.ACTIVE)
    say_at(offline_namespace, T0 + timedelta(days=10), "We got engaged last weekend!")
    jake.refresh_from_db()
    assert jake.status == MemoryStatus.ACTIVE
    _, ended_by = say_at(offline_namespace, T0 + timedelta(days=40), "I'm single again, we broke up last month.")
    jake.refresh_from_db()
    assert jake.status == MemoryStatus.SUPERSEDED
    assert jake.superseded_by in stated_by(ended_by, "relationship_status")
    single = Memory.objects.get(
        namespace=offline_namespace, attribute="relationship_status", status=MemoryStatus.ACTIVE
    )
    _, named = say_at(offline_namespace, T0 + timedelta(days=90), "My girlfriend is called Maya, she's lovely.")
    single.refresh_from_db()
    maya = Memory.objects.get(namespace=offline_namespace, attribute="partner", status=MemoryStatus.ACTIVE)
    assert "Maya" in maya.text
    assert single.status == MemoryStatus.SUPERSEDED
    assert single.superseded_by in stated_by(named, "partner")
