# veil: two entry points for a fresh machine.
#   make demo  -> anonymize the bundled Adult data and print the summary
#   make test  -> run the whole test suite
# (and `make serve`: the local web app, docs/web.md)
# `make demo` installs what the demo uses (the core and the HTML report's plots, .[report]);
# `make test` installs every extra and the test tools (.[all,test]). A plain `pip install .`
# is the light core.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DEMO_STAMP := $(VENV)/.installed-demo
WEB_STAMP  := $(VENV)/.installed-web

.PHONY: demo test serve install bench clean browser bytecode

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet -e '.[all,test]'
	touch $(STAMP) $(DEMO_STAMP) $(WEB_STAMP)

$(DEMO_STAMP): pyproject.toml $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet -e '.[report]'
	touch $(DEMO_STAMP)

$(WEB_STAMP): pyproject.toml $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet -e '.[web]'
	touch $(WEB_STAMP)

install: $(STAMP)

# veil's own modules compiled once (only the changed ones again), so that each `veil` process
# reads bytecode even where PYTHONDONTWRITEBYTECODE is set (as in many containers): without it
# every process compiles about 150 modules, 0.14 s of a 0.85 s `veil anonymize` on Adult
bytecode: $(DEMO_STAMP)
	@$(BIN)/python -m compileall -q src/veil

demo: $(DEMO_STAMP) bytecode
	$(BIN)/veil demo

# the local web app (docs/web.md): prints its address with the access token; Ctrl-C stops it
serve: $(WEB_STAMP) bytecode
	$(BIN)/veil serve

test: $(STAMP) browser bytecode
	$(BIN)/python -m pytest -n 2 -q

# The report's browser tests (tests/browser) need Debian's chromium and chromium-driver.
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { \
	  echo "make test: installing Debian's chromium and chromium-driver for the browser tests (apt-get)"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium chromium-driver >/dev/null; }

bench: $(STAMP) bytecode
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) demo-output .pytest_cache
	find src -name __pycache__ -type d -prune -exec rm -rf {} +
