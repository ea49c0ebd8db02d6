"""File-backed block device with a power-cut switch, for LittleFS on the unix port.

The Pico (RPI_PICO board, 2 MB flash) gives MicroPython a filesystem of
1408 KiB (MICROPY_HW_FLASH_STORAGE_BYTES in ports/rp2/boards/RPI_PICO/
mpconfigboard.h) with 4096-byte erase blocks: 352 blocks, mounted by the
port's _boot.py as VfsLfs2(bdev, progsize=256).  mount() below uses the same
geometry and progsize, so littlefs lays out and writes the volume as on the
board.

Block protocol (vfs.AbstractBlockDev, "extended interface" that littlefs needs):
  readblocks(block, buf, offset=0)    read len(buf) bytes at block*bs + offset
  writeblocks(block, buf, offset)     program len(buf) bytes; never erases
  writeblocks(block, buf)             simple form: erase the blocks, then write
  ioctl(op, arg)                      4 = block count, 5 = block size,
                                      6 = erase block `arg` (sets it to 0xFF),
                                      1/2/3 = init/deinit/sync (no-ops)

Power cut.  `arm_cut(n, tear=0)` lets n more write operations (program or
erase) reach the image; operation n+1 is the one interrupted: its first `tear`
bytes land (a program torn part way, 0 = nothing lands), and from then on the
image is frozen.  Every write after the cut is dropped AND returns -EIO to
littlefs, so the writer stops with OSError(EIO) the way a dead CPU stops.
Why not drop silently: littlefs reads back what it programs; a silently
dropped write looks to it like a bad block, and it would relocate and keep
going on a device that has in truth lost power.  The frozen image is the same
either way; the error only makes the code under test stop where a real cut
would stop it.  After a cut, "reboot" by mounting a fresh FileBlockDev over
the same image file.
"""

from micropython import const

PICO_FS_BYTES = const(1441792)  # 1408 KiB, RPI_PICO default filesystem
BLOCK_SIZE = const(4096)
_ERASE_PIECE = const(256)  # bytes; a larger block size must be a multiple
PROG_SIZE = const(256)  # rp2 _boot.py mounts VfsLfs2(bdev, progsize=256): flash page
EIO = const(5)

_OP_BLOCK_COUNT = const(4)
_OP_BLOCK_SIZE = const(5)
_OP_ERASE = const(6)


class FileBlockDev:
    """A flash-like block device over a host file (created/extended on demand).

    path: image file on the host; block_size in bytes; block_count blocks.
    A new or short image is padded with 0xFF (erased flash).
    """

    def __init__(self, path, block_size=BLOCK_SIZE, block_count=PICO_FS_BYTES // BLOCK_SIZE):
        if block_size <= 0 or block_size % min(block_size, _ERASE_PIECE) or block_count <= 0:
            raise ValueError("bad geometry")
        self.block_size = block_size
        self.block_count = block_count
        self.size = block_size * block_count
        try:
            self._f = open(path, "r+b")
        except OSError:
            self._f = open(path, "w+b")
        f = self._f
        f.seek(0, 2)
        have = f.tell()
        if have < self.size:
            ff = b"\xff" * block_size
            while have < self.size:
                n = min(block_size, self.size - have)
                f.write(ff[:n] if n < block_size else ff)
                have += n
            f.flush()
        # erase pattern, written in pieces: the sim's heap should hold about
        # what the board's (whose flash erases itself) would
        self._ff = b"\xff" * min(block_size, _ERASE_PIECE)
        self.writes = 0  # program + erase operations that reached the image
        self.erases = 0  # of which erases (flash wear)
        self.cut = False  # True once the armed cut has happened
        self._budget = -1  # write operations left before the cut; -1 = never
        self._tear = 0
        self._torn = False  # the torn part of the cut write has been applied

    def close(self):
        self._f.close()

    def arm_cut(self, n, tear=0):
        """Let n more write operations land; the next one is cut after `tear` bytes."""
        if n < 0 or tear < 0:
            raise ValueError("n and tear must be >= 0")
        self._budget = n
        self._tear = tear

    def _gate(self):
        # True if this write operation may land in full.
        if self.cut:
            return False
        if self._budget < 0:
            return True
        if self._budget == 0:
            self.cut = True
            return False
        self._budget -= 1
        return True

    def _check(self, block, offset, n):
        pos = block * self.block_size + offset
        if block < 0 or offset < 0 or pos + n > self.size:
            raise ValueError("block I/O out of range")
        return pos

    def readblocks(self, block, buf, offset=0):
        pos = self._check(block, offset, len(buf))
        self._f.seek(pos)
        self._f.readinto(buf)
        return 0

    def writeblocks(self, block, buf, offset=None):
        if offset is None:  # simple interface: erase, then program whole blocks
            for i in range(len(buf) // self.block_size):
                r = self.ioctl(_OP_ERASE, block + i)
                if r:
                    return r
            offset = 0
        pos = self._check(block, offset, len(buf))
        if not self._gate():
            if self._tear and not self._torn:
                self._f.seek(pos)
                self._f.write(memoryview(buf)[: min(self._tear, len(buf))])
                self._f.flush()
            self._torn = True
            return -EIO
        self._f.seek(pos)
        self._f.write(buf)
        self._f.flush()
        self.writes += 1
        return 0

    def ioctl(self, op, arg):
        if op == _OP_BLOCK_COUNT:
            return self.block_count
        if op == _OP_BLOCK_SIZE:
            return self.block_size
        if op == _OP_ERASE:
            pos = self._check(arg, 0, self.block_size)
            if not self._gate():
                self._torn = True  # an interrupted erase leaves the block as it was
                return -EIO
            f = self._f
            f.seek(pos)
            for _ in range(self.block_size // len(self._ff)):
                f.write(self._ff)
            f.flush()
            self.writes += 1
            self.erases += 1
            return 0
        return 0  # init, deinit, sync: nothing buffered


def mount(path, mountpoint="/flash", fresh=False, **geometry):
    """Mount a LittleFS2 volume over the image at `path` (MicroPython only),
    with the board's progsize.  fresh=True formats the image first.
    Returns the FileBlockDev.  OSError if the image holds no volume."""
    import vfs  # MicroPython 1.23+: the filesystem classes live here, as on the Pico

    bdev = FileBlockDev(path, **geometry)
    if fresh:
        # The stubs type these as taking AbstractBlockDev; any object with the
        # block protocol works (the Pico's own rp2.Flash is one).
        vfs.VfsLfs2.mkfs(bdev, progsize=PROG_SIZE)  # type: ignore[arg-type]
    vol = vfs.VfsLfs2(bdev, progsize=PROG_SIZE)  # type: ignore[arg-type,abstract]
    vfs.mount(vol, mountpoint)
    return bdev
