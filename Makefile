# The two commands of the README's quick start: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow test-fuzz bench install clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	# An editable install leaves graphcell uncompiled, and where PYTHONDONTWRITEBYTECODE is set
	# every process compiled its modules again (a first export: 0.54 -> 0.32 s compiled).
	$(PY) -m compileall -q graphcell
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/graphcell demo

test: $(STAMP)
	$(PY) -m pytest -q -n 2 --dist loadfile

test-slow: $(STAMP)
	GRAPHCELL_TEST_FAST_COMPILE=0 $(PY) -m pytest -q -m slow

# The loader fuzzers run 3,000 examples each; the property tests (random programs and random CNN
# ensembles through eager, XLA and onnxruntime, ~1 s an example) 300 each.
test-fuzz: $(STAMP)
	GRAPHCELL_FUZZ_EXAMPLES=3000 $(PY) -m pytest -q -m fuzz tests/test_fuzz_loaders.py tests/test_ckpt_format.py
	GRAPHCELL_FUZZ_EXAMPLES=300 $(PY) -m pytest -q -n 2 -m fuzz tests/test_properties.py tests/test_ensemble_properties.py tests/test_ensemble_training_properties.py

bench: $(STAMP)
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info
