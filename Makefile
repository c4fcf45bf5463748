# The two commands of the README: `make run` and `make test`. Everything else is what they need.
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint venv dev-venv migrate clean

run: venv migrate
	@$(PY) manage.py ensure_local_account
	@$(PY) manage.py load_sample_dumps
	@echo "citeview is at http://$(HOST):$(PORT)/ (Ctrl-C stops it)"
	$(PY) manage.py runserver $(HOST):$(PORT)

test: lint
	$(PY) -m pytest

lint: dev-venv
	$(VENV)/bin/ruff check citeview tests
	$(VENV)/bin/ruff format --check citeview tests

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

clean:
	rm -rf $(VENV) var
