"""bench/run.py rewrites docs/benchmarks.md and keeps the sections other scripts measured."""

from __future__ import annotations

from pathlib import Path

from bench.run import kept_sections


def test_a_rewrite_keeps_every_marked_section_in_order_and_drops_the_rest(tmp_path: Path) -> None:
    docs = tmp_path / "benchmarks.md"
    docs.write_text(
        "# Benchmarks\n\nold generated table\n\n"
        "<!-- kept: retrieval, measured by its own script -->\n## Retrieval\nhit@10 0.8\n<!-- /kept -->\n\n"
        "## Machine\nold machine\n\n"
        "<!-- startup: written by bench/startup.py -->\n## Starting\n6.9 s\n<!-- /startup -->\n"
    )

    kept = kept_sections(docs)

    assert kept == [
        "<!-- kept: retrieval, measured by its own script -->\n## Retrieval\nhit@10 0.8\n<!-- /kept -->",
        "<!-- startup: written by bench/startup.py -->\n## Starting\n6.9 s\n<!-- /startup -->",
    ]
    assert not any("old" in section for section in kept)


def test_the_project_report_marks_its_hand_measured_sections() -> None:
    docs = Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md"
    headings = [section.splitlines()[1] for section in kept_sections(docs)]
    assert headings == [
        "## Retrieval (issue 18)",
        "## Search with dates, categories and compact vectors (issues 21 and 22)",
        "## Extraction on conversations (issue 15)",
        "## Extraction: nothing said lost, self-contained memories, updates that fire (issue 22)",
        "## Starting memoryadmin",
        "## Read replicas (issue 26)",
        "## Past one machine: PgBouncer and several beats (issue 26)",
        "## Webhooks (issue 27)",
        "## PostgreSQL 18 with pgvector at 1,000,000 memories (issue 21)",
    ]
