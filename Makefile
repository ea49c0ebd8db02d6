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
JOBS    ?= $(shell nproc)

.PHONY: setup system-deps test test-long test-py test-mp lint typecheck firmware demo demo-calc bench deploy clean \
        board-setup bench-board board-demo uf2 uf2-check dist

setup: $(STAMP)

$(STAMP): requirements.txt tools/stubs-requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check -r requirements.txt
	$(BIN)/pip install -q --disable-pip-version-check --no-deps -e .
	$(BIN)/python tools/devpath.py
	rm -rf $(STUBS)
	$(BIN)/pip install -q --disable-pip-version-check --target $(STUBS) \
	    -r tools/stubs-requirements.txt
	touch $(STAMP)

# Everything: pytest on CPython, mpy-cross over every firmware file, ruff, the
# import graph (no circle, no private name across modules) and the type check
# against the rp2 stubs. The core and driver suites run on
# MicroPython within pytest: tests/host/test_core_dual.py runs test-mp's
# command and checks it ran as many tests as pytest collects there.
test: setup system-deps board-setup firmware lint typecheck test-py

# The Debian packages the tests use (chromium, postgresql), installed when missing.
system-deps:
	tools/system-deps.sh test

# The long run of the faulty-reads bot test: 200 hands on the virtual table
# with 5% missed reads and phantom, duplicated and unknown tags on the unix
# port (`make test` plays the same 25 8-hand matches with the controller
# in-process: tests/host/test_faulty_reads.py); about half an hour on two
# cores, one 8-hand match per core. tools/faulty_sweep.py plays many more
# in-process (docs/table.md).
# Then the board's long runs on the emulated Pico: the bots' whole match, and
# the fault tests (chips stopping and coming back, the watchdog, a power cut
# at every flash write of a hand's log); then the live page against the full
# controller (mjtable virtual-table --bots).
test-long: setup board-setup firmware uf2-check
	MJ_BOT_HANDS=200 MJ_BOT_JOBS=$$(nproc) $(BIN)/pytest -q tests/host/test_table_scenarios.py -k bot_hands
	MJ_LIVE_VIRTUAL=1 $(BIN)/pytest -q tests/host/test_live.py -k full_controller
	MJ_BOARD_MATCH=1 $(BIN)/pytest -q tests/board -m board -k match
	MJ_BOARD_LONG=1 $(BIN)/pytest -q -m board tests/board/test_faults_board.py

# pytest-xdist: one worker per core; worksteal keeps both busy to the end. The
# slowest tests are listed at the end: the suite must stay under 10 minutes.
test-py: setup
	$(BIN)/pytest -n $(JOBS) --dist worksteal --durations=12

test-mp: setup
	$(MP) tools/mptest.py tests/core tests/drivers

lint: setup
	$(BIN)/ruff check firmware host sim bench tests tools image
	$(BIN)/python tools/importgraph.py

typecheck: setup
	$(BIN)/mypy --config-file tools/mypy-firmware.ini firmware

firmware: setup
	$(BIN)/python -m mjtable.firmware.build $(FW) build/firmware

# An 8-hand xuezhan match by bots on the virtual table, the firmware on the
# MicroPython unix port, the four seat displays drawn live.
demo: setup
	$(BIN)/python tools/table_demo.py

# Seed 002's worked example through the calculator and the settle tool.
demo-calc: setup
	$(BIN)/python tools/demo.py

bench: setup firmware
	$(BIN)/python bench

# The table's own MicroPython image, the firmware frozen in (docs/image.md):
# build/mjtable-pico.uf2 from MicroPython v1.28.0's source (MPY_SRC, else
# ../shared/micropython/micropython-1.28.0-rp2.tar.xz; MPY_SRC=git clones it)
# with Debian's arm-none-eabi toolchain. uf2-check also builds it a second
# time in a fresh folder and fails unless the two are the same bytes.
uf2: setup
	tools/system-deps.sh uf2
	$(BIN)/python image/build.py

uf2-check: setup
	tools/system-deps.sh uf2
	$(BIN)/python image/build.py --check-repro

# The release: dist/mjtable-VERSION-py3-none-any.whl, the host tool carrying
# the firmware (its sources, its build for the board and that build's ROMFS
# image) and the table's image from make uf2, with the versions and commit
# they were built from (tools/dist.py, staged in build/dist; docs/hostcmds.md).
dist: setup uf2
	$(BIN)/python tools/dist.py

# The board harness (sim/mjsim/boardemu/, docs/board.md): rp2040js from npm,
# pinned by its package-lock.json, into build/boardemu.
BOARD_NODE := build/boardemu/node_modules/rp2040js/package.json
EMU     := sim/mjsim/boardemu
board-setup: $(BOARD_NODE)

$(BOARD_NODE): $(EMU)/package.json $(EMU)/package-lock.json
	mkdir -p build/boardemu
	cp $(EMU)/package.json $(EMU)/package-lock.json build/boardemu/
	cd build/boardemu && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The whole 8-hand match by the bots on the emulated Pico, with figures, into
# build/bench.json ("board"); then the three images side by side ("image", the
# live peaks from `make test-long`'s match runs); long (an hour and more).
bench-board: setup board-setup firmware uf2
	$(BIN)/python bench board
	$(BIN)/python bench image

# The table on the emulated Pico for a newcomer: the seat displays drawn live.
board-demo: setup board-setup firmware
	$(BIN)/python tools/board_demo.py

deploy: setup firmware
	$(BIN)/mjtable deploy $(if $(PORT),--port $(PORT))

clean:
	rm -rf build dist .pytest_cache .mypy_cache .ruff_cache
