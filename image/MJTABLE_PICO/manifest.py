# ruff: noqa: F821  (include, module: MicroPython's manifest functions)
# The table's image: MicroPython's own frozen modules for the Pico (asyncio,
# neopixel, ...), the image's main.py, its build facts (mjbuild.py) and the
# firmware as the board runs it: the modules firmware/manifest.py names.
# image/build.py stages the firmware's board sources (mjtable.firmware.build:
# constants folded, CPython branches emptied), that manifest and mjbuild.py in
# fw/ of its copy of this folder; tests/host/test_image_manifest.py checks
# that the board's imports are all there.
include("$(PORT_DIR)/boards/manifest.py")

module("main.py", base_path="$(BOARD_DIR)")
module("mjbuild.py", base_path="$(BOARD_DIR)/fw")
include("$(BOARD_DIR)/fw/manifest.py")
