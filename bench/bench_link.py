"""Figures of the host link for `make bench` (the lead wires figures() into bench/__main__.py).

What is compared, in one run, over the same kind of pseudo-terminal with the
firmware end on the MicroPython unix port reading the same files from the same
LittleFS volume image:

  link   `mjtable logs pull`'s transfer (mjtable.tableops.logs.pull_logs): every
         hand log on the table read with GET in chunks of max_payload - 9 =
         1015 bytes, 8 requests in flight across logs (refilled 4 at a time
         in one write), each reply framed
         (COBS-253, CRC-32), dispatched by table.link, served whitened by
         table.hostcmds, un-whitened by the host.
  raw    the same bytes of the same files through a minimal MicroPython
         server on a pty: an 11-byte request (log id, offset, length) per
         chunk, the chunk's bytes back unframed, the same chunk size, the same
         8 requests in flight across logs refilled the same way, one open file
         at a time.
  So the share link/raw is the cost of the protocol itself (framing, CRCs,
  stuffing, sequence and dispatch) against a copy that keeps the same round
  trip structure; a plain stream of all bytes at once is reported too
  (stream_mb_s) as the ceiling of the pty.

Also: the time to push a ruleset (`rules push`: PUT + COMMIT with HMACs, the
blob checked and written atomically on LittleFS), median of several pushes.

    .venv/bin/python bench/bench_link.py [--hands N]
"""

import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import tty

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")
PEER = os.path.join(ROOT, "tools", "hostlink_peer.py")
KEY = bytes(range(1, 33))
CHUNK = 1015
WINDOW = 8

RAW_SERVER = r"""
import sys, select, struct
sys.path.insert(0, %(fw)r)
sys.path.insert(0, %(sim)r)
from mjsim import blockdev
blockdev.mount(%(img)r, "/flash")
f = open(%(fd)d, "r+b")
req = bytearray(11)
files = {}
def wr(mv):
    while len(mv):
        n = f.write(mv)
        if n:
            mv = mv[n:]
        else:
            p.poll(5)
buf = bytearray(4096)
bmv = memoryview(buf)
p = select.poll()
p.register(f, select.POLLIN)
print("raw: ready")
have = 0
while True:
    n = f.readinto(memoryview(req)[have:])
    if not n:
        p.poll(20)
        continue
    have += n
    if have < 11:
        continue
    have = 0
    if req[0] == 83:  # 'S': stream a whole file at once
        lid = struct.unpack_from("<I", req, 1)[0]
        with open("/flash/logs/h%%d.log" %% lid, "rb") as g:
            while True:
                k = g.readinto(buf)
                if not k:
                    break
                wr(bmv[:k])
        continue
    lid, off, ln = struct.unpack_from("<IIH", req, 1)
    g = files.get(lid)
    if g is None:  # one open file at a time, as the link's provider
        for k in files:
            files[k].close()
        files = {}
        g = files[lid] = open("/flash/logs/h%%d.log" %% lid, "rb")
    g.seek(off)
    k = g.readinto(bmv[:ln])
    wr(bmv[:k])
"""


def _pty():
    master, slave = os.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    return master, slave, os.ttyname(slave)


def _start(cmd, master, ready):
    proc = subprocess.Popen(cmd, pass_fds=(master,), stdout=subprocess.PIPE)
    os.close(master)
    line = proc.stdout.readline().decode().strip()
    if line != ready:
        proc.kill()
        raise RuntimeError("firmware end did not start: %r" % line)
    return proc


def _stop(proc, slave):
    proc.kill()
    proc.wait()
    os.close(slave)


class RawHost:
    """The raw copy's host end: pyserial on the pty, as the link's host uses."""

    def __init__(self, ser):
        self.ser = ser

    def send(self, b):
        self.ser.write(b)

    def recv(self, n):
        data = self.ser.read(n)
        if len(data) != n:
            raise RuntimeError("raw server silent")
        return data


def raw_pull(h, sizes):
    """Copy every log through the raw server, chunked and pipelined across logs
    exactly like the link's pull (logscmd.pull_logs)."""
    plan = [(lid, off, min(CHUNK, size - off)) for lid, size in sizes
            for off in range(0, size, CHUNK)]
    inflight = []
    i = 0
    while i < len(plan) or inflight:
        if i < len(plan) and len(inflight) <= WINDOW // 2:
            wire = bytearray()  # refilled in one write, as the link's pull does
            while i < len(plan) and len(inflight) < WINDOW:
                lid, off, n = plan[i]
                wire += b"R" + struct.pack("<IIH", lid, off, n)
                inflight.append(n)
                i += 1
            h.send(bytes(wire))
        h.recv(inflight.pop(0))
    return sum(s for _, s in sizes)


def raw_stream(h, sizes):
    for lid, size in sizes:
        h.send(b"S" + struct.pack("<IIH", lid, 0, 0))
        h.recv(size)
    return sum(s for _, s in sizes)


def _best(fn, best):
    t0 = time.perf_counter()
    fn()
    dt = time.perf_counter() - t0
    return dt if best is None else min(best, dt)


def figures(hands=24, repeat=9):
    """Both ends run side by side; link and raw pulls alternate `repeat` times
    and the best of each counts, so a burst of load elsewhere on the machine
    hits both alike."""
    import shutil

    import serial
    from mjtable.link import client as L
    from mjtable.link import protocol as P
    from mjtable.tableops import logs as logscmd
    from sichuan import presets

    tmp = tempfile.mkdtemp(prefix="mjbench")
    img = os.path.join(tmp, "flash.img")
    raw_img = os.path.join(tmp, "raw.img")
    out = {}
    master, slave, path = _pty()
    proc = _start([MICROPYTHON, PEER, "--fd", str(master), "--flash", img, "--fresh",
                   "--hands", str(hands), "--key", KEY.hex()], master, "hostlink_peer: ready")
    rproc = rslave = None
    try:
        shutil.copyfile(img, raw_img)  # the raw server reads its own copy of the volume
        rmaster, rslave, rpath = _pty()
        script = os.path.join(tmp, "raw_server.py")
        with open(script, "w") as f:
            f.write(RAW_SERVER % {"fw": os.path.join(ROOT, "firmware"),
                                  "sim": os.path.join(ROOT, "sim"), "img": raw_img,
                                  "fd": rmaster})
        rproc = _start([MICROPYTHON, script], rmaster, "raw: ready")
        h = RawHost(serial.Serial(rpath, 115200, timeout=5, write_timeout=5))
        ser = serial.Serial(path, 115200, timeout=1, write_timeout=5)
        link = L.Link(ser, key=KEY, timeout=10)
        link.hello()
        sizes = logscmd.table_logs(link)
        nbytes = sum(s for _, s in sizes)

        def pull():
            for _lid, data in logscmd.pull_logs(link, sizes, window=WINDOW):
                logscmd.unwhiten(data)

        best = raw = stream = None
        for _ in range(repeat):
            best = _best(pull, best)
            raw = _best(lambda: raw_pull(h, sizes), raw)
            stream = _best(lambda: raw_stream(h, sizes), stream)
        out["logs"] = len(sizes)
        out["log_bytes"] = nbytes
        out["link_pull_mb_s"] = nbytes / best / 1e6
        out["raw_chunked_mb_s"] = nbytes / raw / 1e6
        out["stream_mb_s"] = nbytes / stream / 1e6
        out["link_share_of_raw"] = out["link_pull_mb_s"] / out["raw_chunked_mb_s"]
        pushes = []
        for i in range(10):
            rs = presets.get("chengdu" if i % 2 else "xuezhan")
            blob = rs.to_blob()
            t0 = time.perf_counter()
            link.put_object(P.OBJ_RULES, 0, blob)
            pushes.append(time.perf_counter() - t0)
        out["rules_push_ms"] = statistics.median(pushes) * 1000
        out["rules_blob_bytes"] = len(blob)
        ser.close()
        h.ser.close()
    finally:
        _stop(proc, slave)
        if rproc is not None:
            _stop(rproc, rslave)
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def section(quick=False):
    """The `link` section of build/bench.json (bench/__main__.py)."""
    f = figures(hands=6, repeat=3) if quick else figures()
    f["targets"] = {"link_share_of_raw": {"value": f["link_share_of_raw"], "target": 0.5,
                                          "ok": f["link_share_of_raw"] >= 0.5}}
    return f


def table(f):
    ok = "PASS" if f["link_share_of_raw"] >= 0.5 else "FAIL"
    return "\n".join((
        "host link over a pty (firmware on the unix port, host on pyserial)",
        "",
        "hand logs pulled: %d logs, %d bytes" % (f["logs"], f["log_bytes"]),
        "link pull (GET 1015 B chunks, 8 in flight): %.2f MB/s" % f["link_pull_mb_s"],
        "raw copy (same files, chunks, round trips):  %.2f MB/s" % f["raw_chunked_mb_s"],
        "link as a share of the raw copy:             %.0f %%  (%s, target 50 %%)"
        % (100 * f["link_share_of_raw"], ok),
        "raw stream of the same bytes (pty ceiling):  %.2f MB/s" % f["stream_mb_s"],
        "rules push (%d-byte blob, PUT+COMMIT, atomic write): %.1f ms median"
        % (f["rules_blob_bytes"], f["rules_push_ms"]),
    ))


def main(argv):
    hands = int(argv[argv.index("--hands") + 1]) if "--hands" in argv else 24
    print(table(figures(hands)))


if __name__ == "__main__":
    main(sys.argv)
