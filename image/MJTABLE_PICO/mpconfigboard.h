// The table's controller: a Raspberry Pi Pico (RP2040, 2 MB flash) running
// MicroPython v1.28.0 with the table's firmware frozen in (manifest.py).
// The same hardware settings as ports/rp2/boards/RPI_PICO: the filesystem
// keeps the Pico's 1408 KiB (docs/storage.md's log space), the firmware's
// code lives in the 640 KiB before it, beside MicroPython's own.
// No ROMFS partition (docs/decisions.md: "The table's own image").
#define MICROPY_HW_BOARD_NAME                   "Raspberry Pi Pico (mjtable)"
#define MICROPY_HW_FLASH_STORAGE_BYTES          (1408 * 1024)
