"""The LLM strategies against a scripted OpenAI-compatible server on loopback: good, malformed and slow answers."""

from __future__ import annotations

import time

import pytest

from memoryadmin.conversations.models import Message, MessageKind
from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.core.errors import InvalidInput
from memoryadmin.extraction.config import validate_extraction_config
from memoryadmin.extraction.models import RunStatus
from memoryadmin.extraction.services import extraction_run, extraction_schedule
from memoryadmin.extraction.strategies.llm import MalformedOutput, memory_items, parse_json_leniently
from memoryadmin.memories.models import Memory, MemoryType
from tests.extraction.conftest import say

GOOD = {
    "memories": [
        {
            "text": "User lives in Lyon",
            "type": "semantic",
            "topics": ["location"],
            "entities": ["Lyon"],
            "source_seqs": [3],
        },
        {"text": "User has a dog named Rex", "type": "episodic", "source_seqs": [99]},
    ]
}


def extract(session):
    return extraction_run(run=extraction_schedule(session=session, delay=0))


def unextracted(session) -> int:
    return Message.objects.filter(session=session, extracted_at__isnull=True).count()


@pytest.fixture
def discrete(make_namespace):
    return make_namespace("llm", extraction_strategy="discrete")


def conversation(namespace, session_id: str = "s1"):
    session, messages = session_append_messages(
        namespace=namespace,
        session_id=session_id,
        user_id="alice",
        messages=[
            NewMessage(role="user", content="Hello!"),
            NewMessage(role="assistant", content="Hi, how can I help?"),
            NewMessage(role="user", content="I moved to Lyon with my dog Rex."),
            NewMessage(role="user", content="Always answer in French.", kind=MessageKind.INSTRUCTION),
        ],
    )
    return session, messages


def test_discrete_memories_are_written_with_evidence_from_their_seqs(discrete, llm) -> None:
    llm.answer(GOOD)
    session, messages = conversation(discrete)
    run = extract(session)
    assert run.status == RunStatus.SUCCEEDED, run.error
    assert (run.strategy, run.created, run.from_seq, run.to_seq) == ("discrete", 2, 1, 4)
    lyon = Memory.objects.get(text="User lives in Lyon")
    assert (lyon.topics, lyon.entities, lyon.memory_type) == (["location"], ["Lyon"], "semantic")
    assert list(lyon.evidence.values_list("message_id", flat=True)) == [messages[2].pk]
    # Seqs that are not in the batch fall back to what the user said in it.
    rex = Memory.objects.get(text="User has a dog named Rex")
    assert rex.memory_type == "episodic"
    assert sorted(rex.evidence.values_list("message_id", flat=True)) == [messages[0].pk, messages[2].pk]
    assert unextracted(session) == 0

    (request,) = llm.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer sk-test-secret"
    body = request["body"]
    assert body["model"] == "test-model" and body["temperature"] == 0.0
    assert body["response_format"]["type"] == "json_schema"
    transcript = body["messages"][-1]["content"]
    assert (
        transcript == "[1] user: Hello!\n[2] assistant: Hi, how can I help?\n[3] user: I moved to Lyon with my dog Rex."
    )
    assert "French" not in str(body["messages"])


def test_malformed_output_fails_the_run_visibly_and_keeps_the_batch_for_a_retry(discrete, llm) -> None:
    llm.answer("Sure! The user lives in Lyon and has a dog.")
    session, _ = conversation(discrete)
    run = extract(session)
    assert run.status == RunStatus.FAILED
    assert run.error.startswith("the model's answer is not JSON")
    assert unextracted(session) == 4 and not Memory.objects.exists()

    llm.answer("```json\n" + '{"memories": [{"text": "User lives in Lyon", "source_seqs": [3],},],}' + "\n```")
    retry = extract(session)
    assert retry.status == RunStatus.SUCCEEDED and retry.created == 1
    assert unextracted(session) == 0


def test_a_slow_model_times_out_and_the_run_fails_without_losing_messages(discrete, llm, settings) -> None:
    settings.LLM_TIMEOUT_SECONDS = 0.3
    settings.LLM_MAX_RETRIES = 0
    llm.answer(GOOD, delay=3)
    session, _ = conversation(discrete)
    started = time.monotonic()
    run = extract(session)
    assert time.monotonic() - started < 2
    assert (run.status, run.error) == (RunStatus.FAILED, "the model did not answer within 0.3s")
    assert unextracted(session) == 4


def test_transient_failures_are_retried_a_bounded_number_of_times(discrete, llm, settings) -> None:
    settings.LLM_MAX_RETRIES = 1
    llm.fail(503)
    llm.answer(GOOD)
    session, _ = conversation(discrete)
    assert extract(session).created == 2
    assert len(llm.requests) == 2

    llm.fail(503)
    llm.fail(429)
    later, _ = conversation(discrete, "s2")
    run = extract(later)
    assert (run.status, run.error) == (RunStatus.FAILED, "the model endpoint answered HTTP 429")
    assert len(llm.requests) == 4


def test_a_refusal_is_not_retried_and_the_error_never_shows_the_key(discrete, llm) -> None:
    llm.fail(401)
    session, _ = conversation(discrete)
    run = extract(session)
    assert (run.status, run.error) == (RunStatus.FAILED, "the model endpoint answered HTTP 401")
    assert len(llm.requests) == 1
    assert "sk-test-secret" not in run.error


def test_an_unreachable_or_unconfigured_model_fails_visibly(discrete, settings) -> None:
    session, _ = conversation(discrete)
    settings.LLM_BASE_URL = ""
    assert extract(session).error == "LLM_BASE_URL is not configured; set it to use an LLM extraction strategy"
    settings.LLM_BASE_URL = "http://127.0.0.1:1/v1"
    settings.LLM_MAX_RETRIES = 0
    assert extract(session).error == "the model endpoint is unreachable: ConnectError"
    assert unextracted(session) == 4


def test_a_run_in_chunks_keeps_what_it_finished_when_a_later_chunk_fails(make_namespace, llm) -> None:
    namespace = make_namespace("chunks", extraction_strategy="discrete")
    namespace.extraction_config = {"max_messages": 2}
    namespace.save(update_fields=["extraction_config"])
    session, _ = say(namespace, "I live in Lyon.", "I love jazz.", "I work at Acme.", "I'm vegan.")
    llm.answer({"memories": [{"text": "User lives in Lyon", "source_seqs": [1]}]})
    llm.answer("{not json")
    run = extract(session)
    assert run.status == RunStatus.FAILED
    assert (run.from_seq, run.to_seq, run.created) == (1, 2, 1)
    assert unextracted(session) == 2
    assert len(llm.requests) == 2
    assert "[3] user: I work at Acme." in llm.requests[1]["body"]["messages"][-1]["content"]


def test_the_preferences_strategy_keeps_only_preferences(make_namespace, llm) -> None:
    namespace = make_namespace("prefs", extraction_strategy="preferences")
    llm.answer(["User prefers window seats", {"preference": "User dislikes early meetings", "type": "semantic"}])
    session, _ = say(namespace, "Window seats please, and no meetings before ten.")
    assert extract(session).created == 2
    assert set(Memory.objects.values_list("memory_type", flat=True)) == {MemoryType.PREFERENCE}
    assert "preferences" in llm.requests[0]["body"]["messages"][0]["content"]


def test_a_custom_prompt_is_filled_with_the_allowed_variables(make_namespace, llm) -> None:
    namespace = make_namespace("custom", extraction_strategy="custom")
    prompt = "Facts about {user_id} in session {session_id} as of {today}, braces {{kept}}:\n{messages}"
    namespace.extraction_config = validate_extraction_config("custom", {"prompt": prompt, "temperature": 0.2})
    namespace.save(update_fields=["extraction_config"])
    llm.answer({"facts": [{"fact": "User lives in Lyon"}]})
    session, _ = say(namespace, "I live in Lyon.")
    run = extract(session)
    assert run.created == 1
    body = llm.requests[0]["body"]
    sent = body["messages"][0]["content"]
    assert sent.startswith("Facts about alice in session s1 as of 20")
    assert "braces {kept}:\n[1] user: I live in Lyon." in sent
    assert body["temperature"] == 0.2


@pytest.mark.parametrize(
    "prompt",
    [
        "Tell me about {secret}: {messages}",
        "{messages.__class__.__init__.__globals__}",
        "{messages!r}",
        "{messages:>10}",
        "{} {messages}",
        "{messages[0]}",
        "{messages",
        "Facts about {user_id} only",
        "",
        "x" * 9000 + "{messages}",
    ],
)
def test_a_custom_prompt_outside_the_allow_list_is_refused(prompt: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        validate_extraction_config("custom", {"prompt": prompt})
    assert refused.value.details["field"] == "extraction_config.prompt"


@pytest.mark.parametrize(
    ("strategy", "config"),
    [
        ("discrete", {"prompt": "{messages}"}),
        ("discrete", {"temperature": 3}),
        ("discrete", {"temperature": "hot"}),
        ("summary", {"max_messages": 0}),
        ("summary", {"max_messages": 2.5}),
        ("preferences", {"response_format": "xml"}),
        ("preferences", {"model": ""}),
        ("custom", {}),
        ("telepathy", {}),
        ("discrete", ["not", "an", "object"]),
    ],
)
def test_it_refuses_a_bad_llm_config(strategy: str, config) -> None:
    with pytest.raises(InvalidInput):
        validate_extraction_config(strategy, config)


def test_it_cleans_a_good_llm_config() -> None:
    config = {"model": " gpt-x ", "temperature": 1, "max_messages": 20, "response_format": "json_object"}
    assert validate_extraction_config("discrete", config) == {
        "model": "gpt-x",
        "temperature": 1.0,
        "max_messages": 20,
        "response_format": "json_object",
    }
    assert validate_extraction_config("summary", None) == {}


def test_the_summary_is_one_memory_per_session_extended_with_its_range(make_namespace, llm, api, make_key) -> None:
    from tests.conftest import ApiClient

    namespace = make_namespace("summaries", extraction_strategy="summary")
    client = ApiClient(make_key(namespace)[1])
    llm.answer({"summary": "Alice is planning a trip to Lyon."})
    session, said = say(namespace, "I am planning a trip to Lyon " + "and more " * 40, "Which museums are open?")
    first = extract(session)
    assert first.created == 1
    summary = Memory.objects.get(memory_type=MemoryType.SUMMARY)
    assert (summary.session_id, summary.text) == ("s1", "Alice is planning a trip to Lyon.")
    assert (summary.metadata["from_seq"], summary.metadata["to_seq"]) == (1, 2)
    assert sorted(summary.evidence.values_list("message_id", flat=True)) == [m.pk for m in said]

    # Nothing new: the model is not asked again.
    assert extract(session).counts["candidates"] == 0
    assert len(llm.requests) == 1

    llm.answer("Alice is planning a trip to Lyon in May and wants museum tips.")
    say(namespace, "We go in May.")
    again = extract(session)
    assert (again.created, again.counts["updated"]) == (0, 1)
    summary.refresh_from_db()
    assert summary.text == "Alice is planning a trip to Lyon in May and wants museum tips."
    assert (summary.revision, summary.metadata["from_seq"], summary.metadata["to_seq"]) == (2, 1, 3)
    assert Memory.objects.filter(memory_type=MemoryType.SUMMARY).count() == 1
    assert "Summary so far:\nAlice is planning a trip to Lyon." in llm.requests[1]["body"]["messages"][-1]["content"]

    context = client.get("/api/v1/sessions/s1/context?token_budget=40").json()
    assert context["summary"] == summary.text


@pytest.mark.parametrize(
    ("answer", "texts"),
    [
        ('{"memories": [{"text": "A"}]}', ["A"]),
        ('```json\n{"memories": [{"text": "A"}]}\n```', ["A"]),
        ('Here you go:\n{"memories": [{"text": "A"}, {"text": "B"}]}\nAnything else?', ["A", "B"]),
        ('{"memories": [{"text": "A"},],}', ["A"]),
        ('["A", "B"]', ["A", "B"]),
        ('{"facts": ["A"]}', ["A"]),
        ('{"text": "A"}', ["A"]),
        ('{"memories": [{"text": "  "}, 7, {"memory": "B"}]}', ["B"]),
        ('{"memories": []}', []),
    ],
)
def test_model_output_is_read_leniently(answer: str, texts: list[str]) -> None:
    assert [item["text"] for item in memory_items(parse_json_leniently(answer))] == texts


@pytest.mark.parametrize("answer", ["The user lives in Lyon.", '{"memories": [', '{"notes": "x"}', "42", ""])
def test_output_that_cannot_be_read_is_refused(answer: str) -> None:
    with pytest.raises(MalformedOutput):
        memory_items(parse_json_leniently(answer))
