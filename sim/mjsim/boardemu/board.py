"""EmuBoard: one emulated Pico (runner.mjs in node) with the table's
chips (boardemu.bridge) served from a thread of this process. See the
package docstring for the API."""

import contextlib
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from mjtable.firmware import tree

from mjsim.boardemu import bridge
from mjsim.proc import as_at_a_terminal

KEY = bytes(range(32))  # the table key the harness gives its boards
KEY_GUO = 3  # seat 0's 过 key: the key button (table.hostlink.key_button)


HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = tree.CHECKOUT or tree.build()  # installed: $PICO_UF2 and $PICO_BOOTROM name the images
NODE_DIR = tree.build("boardemu")
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "rp2emu")
STOCK = "RPI_PICO-v1.28.0.uf2"
ROMFS = "RPI_PICO_ROMFS-v1.28.0.uf2"


def enrollment_blob(seed):
    """The virtual table's tiles' UIDs (mjsim.virtual), 108 x 8 bytes."""
    from mjsim import virtual

    return virtual.enrollment_blob(seed)


def _shared_dir():
    """../shared/rp2emu beside the checkout (a worktree's main checkout's too)."""
    for up in (("..",), ("..", "..")):  # the main checkout's, or a worktree's in wt/
        d = os.path.normpath(os.path.join(ROOT, *up, "shared", "rp2emu"))
        if os.path.isdir(d):
            return d
    return SHARED


def images():
    """{"stock": uf2, "romfs": uf2 or None, "bootrom": bin}: $PICO_UF2 (the
    stock slot) and $PICO_BOOTROM, else the shared folder's; missing ones None."""
    d = _shared_dir()

    def there(p):
        return p if p and os.path.isfile(p) else None

    return {"stock": there(os.environ.get("PICO_UF2") or os.path.join(d, STOCK)),
            "romfs": there(os.environ.get("PICO_UF2_ROMFS") or os.path.join(d, ROMFS)),
            "bootrom": there(os.environ.get("PICO_BOOTROM") or os.path.join(d, "bootrom-B1.bin"))}


def skip_reason():
    """None when the board can run; else one line saying what to get."""
    im = images()
    if im["stock"] is None or im["bootrom"] is None:
        return ("no Pico image: set PICO_UF2 (a MicroPython rp2 .uf2) and PICO_BOOTROM (the "
                "RP2040 B1 boot ROM), or put ../shared/rp2emu/ beside the checkout")
    if not os.path.isdir(os.path.join(NODE_DIR, "node_modules", "rp2040js")):
        return "rp2040js is not installed: make board-setup"
    if shutil.which("node") is None:
        return "node is not installed (Node.js 20)"
    return None


class EmuBoard:
    def __init__(self, seed=1, uf2=None, workdir=None, miss_rate=0.0, phantom_rate=0.0,
                 crosstalk_rate=0.0, throttle=True, fs_in=None):
        im = images()
        self.uf2 = uf2 or im["stock"]
        self.bootrom = im["bootrom"]
        self.workdir = workdir or tempfile.mkdtemp(prefix="boardemu-")
        os.makedirs(self.workdir, exist_ok=True)
        self.port = os.path.join(self.workdir, "tty")
        self.console_file = os.path.join(self.workdir, "console.log")
        self.flash_file = os.path.join(self.workdir, "flash.bin")
        self.log_file = os.path.join(self.workdir, "runner.log")
        self.key_file = os.path.join(self.workdir, "key")
        self.throttle = throttle
        self.fs_in = fs_in  # a LittleFS image to boot with (fs_file of an earlier run)
        self.fs_file = os.path.join(self.workdir, "fs.img")  # the LittleFS, written at stop()
        self.seed = seed
        self.key = KEY
        self.chips = bridge.Chips(seed=seed, miss_rate=miss_rate, phantom_rate=phantom_rate,
                                  crosstalk_rate=crosstalk_rate)
        self.table = self.chips.table
        self.chips.on_cut = self._cut
        self.proc = None
        self._cut_event = threading.Event()
        self._on_event = threading.Event()
        self._cut_info = None

    # --- process ------------------------------------------------------------

    def start(self, timeout=60.0):
        """Start the runner and wait for the board's REPL on the pty."""
        a_r, a_w = os.pipe()  # runner -> bridge (events)
        b_r, b_w = os.pipe()  # bridge -> runner (answers)
        open(self.console_file, "wb").close()
        env = dict(os.environ, RP2EMU_NODE_DIR=NODE_DIR, RP2EMU_BOOTROM=self.bootrom)
        cmd = ["node", os.path.join(HERE, "runner.mjs"), "--fw", self.uf2, "--pty",
               "--pty-link", self.port, "--bridge", "%d,%d" % (a_w, b_r),
               "--console", self.console_file,
               "--flash-file", self.flash_file]
        if not self.throttle:
            cmd.append("--no-throttle")
        if self.fs_in:
            cmd += ["--fs-in", self.fs_in]
        cmd += ["--fs-out", self.fs_file]
        self._log = open(self.log_file, "wb")
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT, env=env,
            pass_fds=(a_w, b_r))
        os.close(a_w)
        os.close(b_r)
        self._fds = (a_r, b_w)
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()
        self._wait_repl(timeout)
        return self

    def _serve(self):
        try:
            bridge.serve(self.chips, *self._fds)
        except OSError:
            pass
        finally:
            for fd in self._fds:
                with contextlib.suppress(OSError):
                    os.close(fd)

    def _wait_repl(self, timeout):
        deadline = time.monotonic() + timeout
        while not os.path.exists(self.port):
            self._check_alive()
            if time.monotonic() > deadline:
                raise RuntimeError("the runner gave no pty in %.0f s: %s" % (timeout, self.log()))
            time.sleep(0.05)

    def _check_alive(self):
        if self.proc.poll() is not None:
            raise RuntimeError("the runner exited (%s): %s" % (self.proc.returncode, self.log()))

    def log(self):
        with open(self.log_file, "rb") as f:
            return f.read().decode("utf-8", "replace")[-2000:]

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc is not None:
            self._thread.join(5)
            self._log.close()
        self.proc = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # --- the chips --------------------------------------------------------------

    def now_ns(self):
        return self.chips.now

    def at(self, ns, fn):
        self.chips.at(ns, fn)

    def locked(self):
        return self.chips.lock

    def answer(self, name, on):
        self.chips.answer(name, on)

    def texts(self):
        """What the four seat displays show."""
        with self.chips.lock:
            return [d.text() for d in self.table.displays]

    # --- power ----------------------------------------------------------------

    def power_cut(self, after):
        """Cut the power right after the `after`th flash program/erase from now."""
        if after < 1:
            raise ValueError("after must be >= 1")
        self._cut_event.clear()
        self._on_event.clear()
        with self.chips.lock:
            self.chips.out.append("C%d" % after)

    def _cut(self, ns, ops):  # bridge thread, lock released: wait for power_on()
        self._cut_info = (ns, ops)
        self._cut_event.set()
        while not self._on_event.wait(0.5):
            if self.proc is None:
                return

    def wait_cut(self, timeout=300.0):
        """(emulated ns, flash operations so far) once the power is cut."""
        if not self._cut_event.wait(timeout):
            raise TimeoutError("no power cut in %.0f s" % timeout)
        return self._cut_info

    def power_on(self):
        """Boot again from flash_file (after a cut)."""
        self._cut_event.clear()
        self._on_event.set()

    def stop_watchdog(self):
        """Stop the RP2040's watchdog at the next bus event (as a debugger's halt
        pauses it): the firmware's keeps running when mpremote stops the
        firmware, and resets the board 8 s later (docs/board.md)."""
        with self.chips.lock:
            self.chips.out.append("X")
        time.sleep(0.5)

    # --- the USB link -----------------------------------------------------------

    def inject(self, data):
        """Raw bytes from the host on the USB link (as if written to the pty)."""
        with self.chips.lock:
            self.chips.out.append("U" + bytes(data).hex())

    def console(self):
        with open(self.console_file, "rb") as f:
            return f.read().decode("latin-1")

    def mjtable(self, *args, timeout=600, check=True, port_flag=True):
        """`mjtable ARGS --port PTY`, the key in this board's key file (workdir/key)."""
        cmd, env = self.mjtable_cmd(args, port_flag)
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        if check and r.returncode:
            raise RuntimeError("%s: exit %d\n%s%s" % (" ".join(args), r.returncode, r.stdout,
                                                      r.stderr))
        return r

    def mjtable_lines(self, *args, seconds=60, until=None):
        """Run `mjtable ARGS --port PTY` (one that runs until stopped, such as
        `monitor`) for at most `seconds` of wall time, or until until(lines)
        is true of its output so far; then stop it with Ctrl-C. Its output
        lines (stdout and stderr)."""
        cmd, env = self.mjtable_cmd(args, True)
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                             preexec_fn=as_at_a_terminal)
        fd = p.stdout.fileno()
        out = b""
        deadline = time.monotonic() + seconds
        try:
            while time.monotonic() < deadline:
                if until and until(out.decode(errors="replace").splitlines()):
                    break
                if select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
                    chunk = os.read(fd, 4096)
                    if not chunk:
                        break  # it ended by itself
                    out += chunk
        finally:
            p.send_signal(signal.SIGINT)  # Ctrl-C, as a user stops it: it tells the table
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            out += p.stdout.read()
            p.stdout.close()
        return out.decode(errors="replace").splitlines()

    def mjtable_cmd(self, args, port_flag=True):
        """(argv, env) of `mjtable ARGS --port PTY` with this board's key file."""
        exe = os.path.join(os.path.dirname(sys.executable), "mjtable")
        cmd = [exe, *args] + (["--port", self.port] if port_flag else [])
        env = dict(os.environ, MJTABLE_KEYFILE=self.key_file)
        env.pop("MJTABLE_KEY", None)
        return cmd, env

    def deploy(self, files=False, timeout=900):
        """`mjtable deploy --port PTY` (the version check included): its output."""
        args = ["deploy"] + (["--files"] if files else [])
        return self.mjtable(*args, timeout=timeout).stdout

    def reset(self, timeout=60.0):
        """machine.reset() through the REPL (mpremote reset), returning once the
        chip has restarted: chips.boots[-1] is then this boot, not the last."""
        n = len(self.chips.boots)
        subprocess.run([_mpremote(), "connect", self.port, "reset"], capture_output=True,
                       timeout=120, check=True)
        deadline = time.monotonic() + timeout
        while len(self.chips.boots) == n:
            if time.monotonic() > deadline:
                raise TimeoutError("the board did not restart after mpremote reset")
            time.sleep(0.05)

    def provision(self, key=KEY):
        """What a new owner does after the deploy: the table key (seat 0's 过 key,
        the key button, held through a reset: `mjtable key set`) and the tiles'
        map (the virtual table's UIDs: mjsim.virtual tile_uid, put as
        the enrolment object, what `mjtable enroll` builds tile by tile)."""
        with self.chips.lock:
            self.table.press(0, KEY_GUO)
        self.reset()
        try:
            self.mjtable("key", "set", key.hex(), timeout=120)
        finally:
            with self.chips.lock:
                self.table.release(0, KEY_GUO)
        with self.link() as link:
            link.put_object(3, 0, enrollment_blob(self.seed))

    def provision_files(self, key=KEY, enroll=True):
        """The same two things as provision(), as the files they leave on the
        board's flash (table.store format: `key`, `enroll.bin`), copied with
        mpremote before the deploy's reset: the 108-tile enrolment takes
        minutes on the emulated board, and the tests need the map, not the walk.
        A keyed table locks its REPL at its next boot: key=None puts the map
        alone, enroll=False the key alone, after the REPL's work (docs/image.md)."""
        import sichuan  # noqa: F401  (the const shim)
        from table import store

        cmd = [_mpremote(), "connect", self.port]
        files = (([("key", key)] if key else [])
                 + ([("enroll.bin", enrollment_blob(self.seed))] if enroll else []))
        for name, data in files:
            local = os.path.join(self.workdir, "put-" + name)
            store.write(local, data)
            cmd += ["fs", "cp", local, ":" + name, "+"]
        subprocess.run(cmd[:-1], capture_output=True, timeout=300, check=True)
        if not key:
            return
        self.key = key
        with open(self.key_file, "w") as f:
            f.write(key.hex() + "\n")

    @contextlib.contextmanager
    def link(self, timeout=10.0):
        """An open mjtable.link.Link session on the board's pty, with the key."""
        from mjtable.link import client as L

        ser = L.open_port(self.port, timeout=1.0)
        try:
            lk = L.Link(ser, key=self.key, timeout=timeout)
            lk.hello()
            yield lk
        finally:
            ser.close()


def _mpremote():
    return os.path.join(os.path.dirname(sys.executable), "mpremote")
