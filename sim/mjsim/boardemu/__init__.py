"""The board harness: the firmware on an emulated Raspberry Pi Pico, with the
table's chips on its buses (docs/board.md).

A MicroPython rp2 image (the shared stock or ROMFS v1.28.0 one, or the
project's own) runs in rp2040js (npm 1.4.1, `make board-setup` installs it
into build/boardemu) driven by sim/mjsim/boardemu/runner.mjs; the board's USB CDC is a
pseudo-terminal, so `mjtable deploy --port PTY` and every other mjtable
command work against it as against a real table. The chips on the buses, at
the hardware's pins (mjsim.chipsim.wiring), are the virtual table's own models
(mjsim/chipsim, in a SimTable), hosted in this process by boardemu.bridge:
the runner hands each SPI0 byte, I2C1 event, NSS/RST/antenna pin change and
WS2812 latch to the bridge and waits for the answer with the emulated CPU
paused, so emulated time is exact whatever the machine's load.

API (what the board tests use):

    from boardemu import EmuBoard, images, skip_reason
    b = EmuBoard(seed=1, uf2=None, workdir=None)  # uf2 None: images()["stock"]
    b.start()             # boots; b.port is the pty path (mpremote, pyserial, mjtable)
    b.table               # the SimTable: .readers[s] (PN5180Sim: set_tags(ant, uids)),
                          #   .displays[s] (HT16K33Sim .text()), .keys[s] (MCP23017Sim),
                          #   .press(seat, key) / .release(seat, key), .leds.shown
    b.chips.readers[s]    # air-time book-keeping: .exchanges, .air_ns, .violations
    b.now_ns()            # emulated ns of the last bus event
    b.at(ns, fn)          # fn() in the bridge thread at emulated time ns (CPU paused)
    b.locked()            # context manager: change the chips between two bus events
    b.answer("reader2", False)   # a chip stops answering: "reader0..3", "display0..3",
    b.answer("reader2", True)    #   "keys0..3"; back (power-cycled, tags and keys kept)
    b.power_cut(after=N)  # cut the power right after the Nth flash program/erase from now
    b.wait_cut(timeout)   # -> (ns, flash ops so far) once cut; the flash image is b.flash_file
    b.power_on()          # boot again from b.flash_file (change it first if you like)
    b.stop_watchdog()     # before mpremote stops a running firmware (its 8 s watchdog runs on)
    b.inject(data)        # raw bytes from the host on the USB link
    b.console()           # everything the board wrote on its USB CDC (str, latin-1)
    b.deploy(files=False) # `mjtable deploy --port b.port` (check=True), its output
    b.mjtable(*args)      # run `mjtable ARGS --port b.port`, returns CompletedProcess
    b.stop()

Images: $PICO_UF2 (and $PICO_BOOTROM) else ../shared/rp2emu/ beside the
checkout; skip_reason() is None when an image and the npm package are there,
else one line saying how to get them.
"""

from .board import EmuBoard, images, skip_reason

__all__ = ["EmuBoard", "images", "skip_reason", "HEAP_TARGETS"]

# per image, B: (the firmware's code in the heap under, free at a match's live
# peak at least); None: no target (issues 20 and 22)
HEAP_TARGETS = {"stock": (None, 64 * 1024), "romfs": (40 * 1024, None),
                "image": (24 * 1024, 150 * 1024)}
