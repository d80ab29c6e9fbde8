# The two commands a newcomer needs: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test install clean bench

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e '.[semantic,postgres,dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(PY) -m bot run

test: $(STAMP)
	$(PY) -m pytest

clean:
	rm -rf $(VENV)
