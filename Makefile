# veil: two entry points for a fresh machine.
#   make demo  -> anonymize the bundled Adult data and print the summary
#   make test  -> run the whole test suite
# Both install veil with every extra (.[all,test]); a plain `pip install .` is the light core.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test install bench clean browser

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[all,test]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/veil demo

test: $(STAMP) browser
	$(BIN)/python -m pytest -n 2 -q

# The report's browser tests (tests/browser) need Debian's chromium and chromium-driver.
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium chromium-driver >/dev/null; }

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) demo-output .pytest_cache
