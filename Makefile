# The two commands a newcomer needs: `make demo` and `make test`.
# Every target installs what it needs by itself (make setup).

PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
MP      := $(BIN)/micropython
STUBS   := $(VENV)/mpstubs
STAMP   := $(VENV)/.setup-stamp
FW      := firmware
HEAP    ?= 96K

.PHONY: setup test test-long test-py test-mp lint typecheck firmware demo demo-calc bench deploy clean

setup: $(STAMP)

$(STAMP): requirements.txt tools/stubs-requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check -r requirements.txt
	$(BIN)/pip install -q --disable-pip-version-check --no-deps -e .
	rm -rf $(STUBS)
	$(BIN)/pip install -q --disable-pip-version-check --target $(STUBS) \
	    -r tools/stubs-requirements.txt
	touch $(STAMP)

# Everything: pytest on CPython, mpy-cross over every firmware file, ruff and
# the type check against the rp2 stubs. The core and driver suites run on
# MicroPython within pytest: tests/host/test_core_dual.py runs test-mp's
# command and checks it ran as many tests as pytest collects there.
test: setup firmware lint typecheck test-py

# The long run of the faulty-reads bot test: 200 hands on the virtual table
# with 5% missed reads and phantom, duplicated and unknown tags (`make test`
# plays 16 of them); about half an hour on two cores, one match per core.
# Then the live page against the full controller (mjtable virtual-table --bots).
test-long: setup firmware
	MJ_BOT_HANDS=200 MJ_BOT_JOBS=$$(nproc) $(BIN)/pytest -q tests/host/test_table_scenarios.py -k bot_hands
	MJ_LIVE_VIRTUAL=1 $(BIN)/pytest -q tests/host/test_live.py -k full_controller

test-py: setup
	$(BIN)/pytest

test-mp: setup
	$(MP) tools/mptest.py tests/core tests/drivers

lint: setup
	$(BIN)/ruff check firmware host tests tools

typecheck: setup
	$(BIN)/mypy --config-file tools/mypy-firmware.ini firmware

firmware: setup
	$(BIN)/python tools/build_firmware.py $(FW) build/firmware

# An 8-hand xuezhan match by bots on the virtual table, the firmware on the
# MicroPython unix port, the four seat displays drawn live.
demo: setup
	$(BIN)/python tools/table_demo.py

# Seed 002's worked example through the calculator and the settle tool.
demo-calc: setup
	$(BIN)/python tools/demo.py

bench: setup firmware
	$(BIN)/python tools/bench.py

deploy: setup firmware
	$(BIN)/mjtable deploy $(if $(PORT),--port $(PORT))

clean:
	rm -rf build .pytest_cache .mypy_cache .ruff_cache
