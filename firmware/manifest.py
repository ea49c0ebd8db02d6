# ruff: noqa: F821  (module, package: MicroPython's manifest functions)
# What goes on the board, in MicroPython's manifest form: the table's image
# includes this file (image/MJTABLE_PICO/manifest.py), and `mjtable deploy`
# and the host's build (mjtable.firmware.build) read it, so the image, a
# deploy and `make firmware` carry the same modules. main.py, which the board
# runs as source from its filesystem, is not a module here. sichuan/tiles.py
# (the notation for people) is the host's alone: nothing on the board imports
# it (tests/host/test_image_manifest.py walks the imports).
module("app.py")
package("boards", files=["__init__.py", "pico.py"])
package("drivers", files=["__init__.py", "buttons.py", "ht16k33.py", "mcp23017.py",
                          "pn5180.py", "ws2812.py"])
package("sichuan", files=["__init__.py", "claims.py", "fan.py", "game.py", "handlog.py",
                          "meld.py", "pattern.py", "presets.py", "ruleset.py", "settle.py",
                          "shape.py", "wild.py"])
package("table", files=["alerts.py", "controller.py", "crc.py", "display.py", "enroll.py",
                        "frame.py", "hostcmds.py", "hostlink.py", "le.py", "link.py",
                        "logstore.py", "mac.py", "observe.py", "recordlog.py", "scan.py",
                        "selftest.py", "store.py", "usbport.py", "watchdog.py", "whiten.py",
                        "xfer.py"])
