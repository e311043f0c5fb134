# The two commands: `make run` and `make test`. Everything else is a helper.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.12 2>/dev/null || ls $$HOME/.pyenv/versions/3.12*/bin/python3.12 2>/dev/null | tail -1)
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
TEST_WORKERS ?= 2

.PHONY: run test test-slow setup venv deps deps-dev db lint bench clean

$(BIN)/python:
	@test -n "$(PYTHON)" || { echo "Python 3.12 is required (pyenv install 3.12, or set PYTHON=...)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.deps: requirements.txt | $(BIN)/python
	$(BIN)/pip install -q -r requirements.txt
	touch $@

$(VENV)/.deps-dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install -q -r requirements-dev.txt
	touch $@ $(VENV)/.deps

venv: $(BIN)/python
deps: $(VENV)/.deps
deps-dev: $(VENV)/.deps-dev

db: deps
	$(BIN)/python manage.py ensure_database
	$(BIN)/python manage.py migrate --no-input -v0

setup: db
	$(BIN)/python manage.py seed_demo

run: setup
	@mkdir -p var
	@echo
	@echo "  memoryadmin is starting at http://$(HOST):$(PORT)/"
	@echo "  Console logins: admin / admin-demo-pass (admin), olivia / operator-demo-pass (operator), victor / viewer-demo-pass (viewer)"
	@echo "  API docs: http://$(HOST):$(PORT)/api/v1/docs"
	@echo "  A fresh API key for the support-bot namespace (read, write, erase):"
	@echo "    $$($(BIN)/python manage.py create_api_key support-bot --name make-run --scopes read,write,erase 2>/dev/null | tail -1)"
	@echo "  Ctrl-C stops web, worker and beat."
	@echo
	@trap 'kill 0' INT TERM EXIT; \
	$(BIN)/celery -A memoryadmin worker -l info --concurrency 2 & \
	$(BIN)/celery -A memoryadmin beat -l info --schedule var/celerybeat-schedule & \
	$(BIN)/python manage.py runserver $(HOST):$(PORT) --noreload

test: deps-dev
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/python manage.py ensure_database
	$(BIN)/python manage.py makemigrations --check --dry-run -v0
	$(BIN)/pytest -n $(TEST_WORKERS) -m "not slow"

test-slow: deps-dev
	$(BIN)/pytest -n $(TEST_WORKERS) -m slow; rc=$$?; if [ $$rc -eq 5 ]; then echo "no slow tests selected"; else exit $$rc; fi

lint: deps-dev
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/ruff format --check .

bench: deps-dev
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) var .pytest_cache
