# The two commands of the README: `make run` and `make test`, and `make dev` for working on citeview.
# Everything else is what they need.
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

CHROMIUM ?= /usr/bin/chromium

.PHONY: run dev setup hooks test bench lint architecture browser messages venv dev-venv migrate clean

# Served as deployed (DEBUG off, gunicorn, static files by WhiteNoise), over plain http, with Fetch on:
# the environment is scripts/run-env's, with a secret key made once in var/.
run: setup
	@scripts/run-env $(PY) manage.py collectstatic --noinput --verbosity 0
	@echo "citeview is at http://$(HOST):$(PORT)/ with two task workers beside it (Ctrl-C stops them all)"
	scripts/run-env scripts/serve $(HOST):$(PORT)

# DEBUG on, for working on citeview: Django's technical error pages, and the server and the worker
# reload with the code.
dev: setup hooks
	@echo "citeview (DEBUG on) is at http://$(HOST):$(PORT)/ with two task workers beside it (Ctrl-C stops them all)"
	scripts/serve $(HOST):$(PORT) dev

# The repository's hooks (scripts/hooks): commit-msg refuses a subject over 72 characters.
hooks:
	@if [ -d .git ] || git rev-parse --git-dir >/dev/null 2>&1; then git config core.hooksPath scripts/hooks; fi

setup: venv migrate
	@$(PY) manage.py compile_translations
	@$(PY) manage.py ensure_local_account
	@$(PY) manage.py refresh_dumps
	@$(PY) manage.py load_sample_dumps
	@$(PY) manage.py load_sample_review

test: lint browser
	@$(PY) manage.py compile_translations
	$(PY) -m pytest
	@echo "The suite again on PostgreSQL (all but the browser tests), then the team's day in the browser"
	scripts/test-postgres -q --ignore=tests/browser
	scripts/test-postgres -q -n 0 tests/browser/test_team_walk.py

# Speed and memory against their targets (bench/run.py): a table, and bench/results.json.
# About 10 minutes; `make bench BENCH=--quick` for a first look.
bench: venv
	$(PY) -m bench.run $(BENCH)

# The browser tests drive Debian's Chromium (Playwright's own browser download does not work here).
browser:
	@test -x $(CHROMIUM) || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Installing Chromium and Japanese fonts for the browser tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk fonts-noto-color-emoji >/dev/null; \
	  else \
	    echo "The browser tests need Chromium: sudo apt-get install chromium fonts-noto-cjk (or make test CHROMIUM=/path/to/chromium)"; \
	    exit 1; \
	  fi; }
	@test -f tests/browser/node_modules/axe-core/axe.min.js || { \
	  command -v npm >/dev/null || { echo "The accessibility check needs npm (Node.js) to fetch axe-core: apt-get install npm"; exit 1; }; \
	  npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error; }

lint: dev-venv
	$(VENV)/bin/ruff check citeview tests bench
	$(VENV)/bin/ruff format --check citeview tests bench
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-cache
	$(PY) scripts/draw_architecture.py --check

# Draws docs/architecture.md's two pictures of the imports again, from the code.
architecture: dev-venv
	$(PY) scripts/draw_architecture.py --write

# Brings the Japanese catalogue up to date with the code; then translate what is new.
# Our makemessages also collects the core's `phrase(...)` sentences (citeview/core/common/phrases.py).
messages: dev-venv
	$(PY) manage.py makemessages -l ja --no-obsolete --ignore='.venv/*' --ignore='tests/*' --ignore='var/*'

venv: $(VENV)/.installed-run
dev-venv: $(VENV)/.installed-dev

migrate: venv
	@$(PY) manage.py migrate --noinput

$(VENV)/bin/python:
	@python=$$(scripts/find-python) && echo "Creating $(VENV) with $$python" && "$$python" -m venv $(VENV)
	@$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.installed-run: requirements.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet -r requirements.txt
	@touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet -r requirements-dev.txt
	@touch $@ $(VENV)/.installed-run

# Only the installed packages: the data (db.sqlite3 and the blobs under var/) belong together and stay.
clean:
	rm -rf $(VENV)
