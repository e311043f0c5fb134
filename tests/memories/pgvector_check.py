"""Search's pgvector path on a real pgvector server, run in its own process by test_pgvector.py.

    python bin/embedded_pg.py run -- python -m tests.memories.pgvector_check

Migrates the database DATABASE_URL names (PostgreSQL 18 with pgvector and contrib), then
writes and searches memories there. Prints one JSON object of findings.
"""

from __future__ import annotations

import json
import os


def feedback_error(hits, query_vector, embedder) -> float:
    """How far each hit's `vector` is from its cosine with the query moved towards the first ranking's 3 best."""
    import numpy as np

    from memoryadmin.memories.search.scoring import FEEDBACK, FEEDBACK_WEIGHT, WEIGHTS

    def first_relevance(hit) -> float:
        parts = hit.explain
        return sum(WEIGHTS[name] * parts[name] for name in ("fulltext", "terms")) + WEIGHTS["vector"] * max(
            parts["vector_query"], 0.0
        )

    vectors = {h.memory.pk: embedder.embed([h.memory.text])[0] for h in hits}
    best = sorted(hits, key=first_relevance, reverse=True)[:FEEDBACK]
    fed_back = query_vector + FEEDBACK_WEIGHT * np.mean([vectors[h.memory.pk] for h in best], axis=0)
    fed_back /= np.linalg.norm(fed_back)
    return max(abs(h.explain["vector"] - float(vectors[h.memory.pk] @ fed_back)) for h in hits)


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryadmin.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    # The project's own migrations: pgvector present, the embedding column is `vector`.
    call_command("migrate", verbosity=0)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
            "WHERE attrelid = 'memories_memoryvector'::regclass AND attname = 'embedding'"
        )
        column_type = cursor.fetchone()[0]

    import numpy as np

    from memoryadmin.audit.services import Actor
    from memoryadmin.memories.embeddings import WordLlamaEmbedder
    from memoryadmin.memories.models import Memory, MemoryVector
    from memoryadmin.memories.queries import memories_search
    from memoryadmin.memories.services import NewMemory, memory_create, memory_create_many, memory_forget
    from memoryadmin.memories.vectors import hnsw_index_ensure, hnsw_index_name, pgvector, vectors_of
    from memoryadmin.tenancy.models import Namespace

    actor = Actor.system("pgvector-check")
    namespace = Namespace.objects.create(slug="alpha", name="Alpha")
    other = Namespace.objects.create(slug="beta", name="Beta")
    texts = {
        "car": "Alice drives a red automobile",
        "tea": "Alice drinks green tea every morning",
        "job": "Alice works as a nurse in Lyon",
        "pet": "Alice adopted a puppy named Luna",
    }
    made = {
        k: memory_create(namespace=namespace, user_id="alice", text=t, actor=actor).memory for k, t in texts.items()
    }
    memory_create_many(
        namespace=namespace,
        actor=actor,
        items=[
            NewMemory(user_id="bob", text="Bob drives an old automobile", topics=["cars"]),
            NewMemory(user_id="bob", text="Bob drinks coffee"),
        ],
    )
    memory_create(namespace=other, user_id="alice", text="Alice drives an automobile elsewhere", actor=actor)
    model = WordLlamaEmbedder.model
    embedder = WordLlamaEmbedder()

    findings: dict = {"column_type": column_type, "pgvector": pgvector()}
    stored = vectors_of([made["car"].pk], model)[made["car"].pk]
    findings["stored_matches_embedding"] = bool(np.allclose(stored, embedder.embed([texts["car"]])[0], atol=1e-5))

    # Scoped: similarity computed by the database equals the exact cosine.
    hits = memories_search(namespace, query="Which car does Alice own?", user_id="alice", explain=True).items
    query_vector = embedder.embed(["Which car does Alice own?"])[0]
    findings["scoped_first"] = hits[0].memory.text
    findings["scoped_users"] = sorted({h.memory.user_id for h in hits})
    findings["scoped_vector_error"] = max(
        abs(h.explain["vector_query"] - float(embedder.embed([h.memory.text])[0] @ query_vector)) for h in hits
    )
    # Feedback reads the candidates' vectors from the database: the fed-back similarity is exact too.
    findings["feedback_error"] = feedback_error(hits, query_vector, embedder)

    # Without a person: vector candidates come from the HNSW index, within the namespace and filters.
    findings["index_made"] = hnsw_index_ensure(model, embedder.dimension)
    wide = memories_search(namespace, query="automobile", explain=True).items
    findings["wide_texts"] = sorted(h.memory.text for h in wide)
    wide = memories_search(namespace, query="vehicle", explain=True).items
    findings["wide_vector_only"] = sorted(h.memory.text for h in wide if h.explain["fulltext"] == 0)
    findings["wide_namespaces"] = sorted({h.memory.namespace_id for h in wide})
    filtered = memories_search(namespace, query="vehicle", topics=["cars"]).items
    findings["filtered_texts"] = [h.memory.text for h in filtered]
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")
        literal = "[" + ",".join(f"{x:.6g}" for x in query_vector) + "]"
        cursor.execute(
            "EXPLAIN SELECT memory_id FROM memories_memoryvector v WHERE v.model = %s "
            "ORDER BY (v.embedding::vector(256)) <=> %s::vector(256) LIMIT 10",
            [model, literal],
        )
        findings["plan_uses_hnsw"] = hnsw_index_name(model) in " ".join(r[0] for r in cursor.fetchall())
        cursor.execute("RESET enable_seqscan")

    # Forgetting takes the vector with it, in the database.
    memory_forget(memory=made["tea"], actor=actor)
    findings["vector_after_forget"] = MemoryVector.objects.filter(memory_id=made["tea"].pk).count()
    findings["memories"] = Memory.objects.count()
    print(json.dumps(findings))


if __name__ == "__main__":
    main()
