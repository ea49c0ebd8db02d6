// The table's controller: a Raspberry Pi Pico (RP2040, 2 MB flash) running
// MicroPython v1.28.0 with the table's firmware frozen in (manifest.py).
// The same hardware settings as ports/rp2/boards/RPI_PICO: the filesystem
// keeps the Pico's 1408 KiB (docs/storage.md's log space), the firmware's
// code lives in the 640 KiB before it, beside MicroPython's own.
// No ROMFS partition (docs/decisions.md: "The table's own image").
#define MICROPY_HW_BOARD_NAME                   "Raspberry Pi Pico (mjtable)"
#define MICROPY_HW_FLASH_STORAGE_BYTES          (1408 * 1024)

// main.py and boot.py, frozen or on the filesystem, start with Ctrl-C off
// (pyexec.c's board hook: EXEC_FLAG_NO_INTERRUPT), and app.py turns it on
// unless the table is locked. Without this, a Ctrl-C sent while the board
// powers up could interrupt main.py before app.py has read the key, and end
// in the REPL (docs/image.md, The locked table). The REPL and mpremote's
// raw REPL (their own flags) keep Ctrl-C.
#define MICROPY_BOARD_BEFORE_PYTHON_EXEC(input_kind, exec_flags) \
    do { \
        if ((exec_flags) & (EXEC_FLAG_SOURCE_IS_RAW_CODE | EXEC_FLAG_SOURCE_IS_FILENAME)) { \
            (exec_flags) |= EXEC_FLAG_NO_INTERRUPT; \
        } \
    } while (0)
