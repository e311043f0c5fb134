"""Snapshot export and restore throughput, in-process (no HTTP), in records per second.

    .venv/bin/python bench/restore_throughput.py --database-url postgres://postgres@127.0.0.1:5432/memoryadmin_bench_x

Exports namespace `bench` of a generated database (bench/generate.py) to a file with
`snapshot_export_stream`, as the API serves it, and reports records/s and the growth of this
process's peak RSS. Then restores, as figure 9 does, the export's memories, revisions, pins
and tombstones into a fresh namespace (memory ids mapped to new ones) with `snapshot_restore`
and reports records/s, the outcome counts, and the rate of each tenth of the apply pass (a
restore whose cost grows with what it has written slows down from tenth to tenth). The
fresh namespace and its rows are removed afterwards.

The export carries each memory's vector, which the restore writes as it is; with
`--without-vectors` they are taken out of the file first, so the restore embeds every
memory again (a snapshot from before vectors were carried, or from another embedder).
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.common import DEFAULT_REDIS_URL, django_setup, use_code  # noqa: E402


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def without_vectors(path: Path) -> None:
    """Rewrite a snapshot without its vectors (header and memory records), sealed again."""
    import orjson

    stripped = path.with_name("stripped.jsonl")
    digest = hashlib.sha256()
    with path.open("rb") as source, stripped.open("wb") as out:
        for raw in source:
            record = orjson.loads(raw)
            if record.get("type") == "end":
                record["sha256"] = digest.hexdigest()
            else:
                record.pop("vectors" if "format" in record else "vector", None)
            line = orjson.dumps(record) + b"\n"
            digest.update(line)
            out.write(line)
    stripped.replace(path)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument("--namespace", default="bench")
    parser.add_argument("--skip-restore", action="store_true")
    parser.add_argument("--without-vectors", action="store_true", help="restore a file without the memories' vectors")
    args = parser.parse_args(argv)
    use_code("worktree")
    django_setup(args.database_url, args.redis_url)

    import psycopg

    from bench import figures
    from memoryadmin.audit.services import Actor
    from memoryadmin.governance.snapshots import snapshot_export_stream, snapshot_restore
    from memoryadmin.tenancy.models import Namespace
    from memoryadmin.tenancy.services import namespace_create

    namespace = Namespace.objects.get(slug=args.namespace)
    workdir = Path(tempfile.mkdtemp(prefix="restore-bench-"))
    export_path = workdir / "export.jsonl"

    rss_before = peak_rss_mb()
    started = time.perf_counter()
    records = 0
    with export_path.open("wb") as out:
        for chunk in snapshot_export_stream(namespace=namespace):
            out.write(chunk)
            records += chunk.count(b"\n")
    seconds = time.perf_counter() - started
    records -= 2  # header and trailer
    print(
        f"export: {records} records in {seconds:.1f} s = {records / seconds:,.0f} records/s; "
        f"peak RSS {peak_rss_mb():.0f} MB (was {rss_before:.0f} MB before the export); "
        f"{export_path.stat().st_size / 2**20:.0f} MiB",
        flush=True,
    )
    if args.skip_restore:
        return

    actor = Actor.system("bench")
    slug = f"bench-restore-{int(time.time())}"
    target = namespace_create(slug=slug, actor=actor)
    restore_path, restore_records = figures.restore_input(export_path, slug)
    if args.without_vectors:
        without_vectors(restore_path)
    marks: list[tuple[int, float]] = []

    def progress(done: int) -> None:
        marks.append((done, time.perf_counter()))

    try:
        started = time.perf_counter()
        with restore_path.open("rb") as source:
            result = snapshot_restore(namespace=target, source=source, actor=actor, dry_run=False, progress=progress)
        seconds = time.perf_counter() - started
        print(
            f"restore: {restore_records} records in {seconds:.1f} s = {restore_records / seconds:,.0f} records/s; "
            f"counts {result.counts}; peak RSS {peak_rss_mb():.0f} MB",
            flush=True,
        )
        if marks:
            apply_started = marks[0][1]
            print(f"  validation and first batch: {apply_started - started:.1f} s")
            tenth = max(1, restore_records // 10)
            previous = (marks[0][0], apply_started)
            rates = []
            for done, at in marks[1:]:
                if done - previous[0] >= tenth or (done, at) == marks[-1]:
                    rates.append(f"{(done - previous[0]) / max(at - previous[1], 1e-9):,.0f}")
                    previous = (done, at)
            print(f"  apply rate by tenth (records/s): {' '.join(rates)}")
    finally:
        figures.remove_bench_rows(args.database_url, target.pk, session_prefix="%", memory_text_like="%")
        with psycopg.connect(args.database_url, autocommit=True) as conn:
            conn.execute("DELETE FROM memories_tombstone WHERE namespace_id = %s", [target.pk])
        for path in (export_path, restore_path):
            path.unlink(missing_ok=True)
        workdir.rmdir()


if __name__ == "__main__":
    main()
