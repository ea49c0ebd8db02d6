# ruff: noqa: F821  (include, module, package: MicroPython's manifest functions)
# The table's image: MicroPython's own frozen modules for the Pico (asyncio,
# neopixel, ...), the image's main.py, and the firmware as the board runs it.
# image/build.py stages the firmware's board sources (tools/build_firmware.py:
# constants folded, CPython branches emptied) and mjbuild.py in fw/ of its
# copy of this folder. Name every module the board imports and nothing only
# the unix port or the host needs (boards/sim.py, boards/chipsim/,
# table/ptyport.py, table/blockdev.py, sichuan/tiles.py):
# tests/host/test_image_manifest.py checks both.
include("$(PORT_DIR)/boards/manifest.py")

module("main.py", base_path="$(BOARD_DIR)")
module("mjbuild.py", base_path="$(BOARD_DIR)/fw")
module("app.py", base_path="$(BOARD_DIR)/fw")
package("boards", files=["__init__.py", "pico.py"], base_path="$(BOARD_DIR)/fw")
package("drivers", files=["__init__.py", "buttons.py", "ht16k33.py", "mcp23017.py",
                          "pn5180.py", "ws2812.py"], base_path="$(BOARD_DIR)/fw")
package("sichuan", files=["__init__.py", "claims.py", "fan.py", "game.py", "handlog.py",
                          "meld.py", "presets.py", "ruleset.py", "settle.py", "shape.py",
                          "wild.py"], base_path="$(BOARD_DIR)/fw")
package("table", files=["alerts.py", "controller.py", "crc.py", "display.py", "enroll.py",
                        "frame.py", "hostcmds.py", "hostlink.py", "le.py", "link.py",
                        "logstore.py", "mac.py", "observe.py", "recordlog.py", "scan.py",
                        "store.py", "usbport.py", "watchdog.py", "whiten.py", "xfer.py"],
        base_path="$(BOARD_DIR)/fw")
