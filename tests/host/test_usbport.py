"""table/usbport.py: the link's board stream. The second-CDC path is checked with a
fake usb-device-cdc package (CPython); the REPL fallback runs for real on the
MicroPython unix port (no `usb` module there), over its stdin/stdout pipes."""

import os
import select
import subprocess
import sys
import types

from mjtable.link import client as H

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")


def test_second_cdc_interface_when_the_package_is_there(monkeypatch):
    calls = {}

    class FakeCDC:
        def __init__(self, **kw):
            calls["cdc"] = kw

        def readinto(self, mv):
            mv[:2] = b"hi"
            return 2

        def ioctl(self, req, arg):
            calls.setdefault("ioctl", []).append((req, arg))
            return (len(calls["ioctl"]) - 1) % 2  # nothing, then something


        def write(self, mv):
            return len(mv)

    class Dev:
        def init(self, *itfs, **kw):
            calls["init"] = (itfs, kw)

    usb = types.ModuleType("usb")
    device = types.ModuleType("usb.device")
    cdc = types.ModuleType("usb.device.cdc")
    device.get = lambda: Dev()
    cdc.CDCInterface = FakeCDC
    usb.device = device
    device.cdc = cdc
    monkeypatch.setitem(sys.modules, "usb", usb)
    monkeypatch.setitem(sys.modules, "usb.device", device)
    monkeypatch.setitem(sys.modules, "usb.device.cdc", cdc)
    from table import usbport

    read, write, name = usbport.open_stream()
    assert name == "cdc"
    assert calls["cdc"]["timeout"] == 0  # never waits inside poll()
    itfs, kw = calls["init"]
    assert kw == {"builtin_driver": True} and isinstance(itfs[0], FakeCDC)
    buf = bytearray(8)
    assert read(memoryview(buf)) is None  # poll says empty: readinto not called
    assert read(memoryview(buf)) == 2 and buf[:2] == b"hi"
    assert calls["ioctl"] == [(3, 1), (3, 1)]  # MP_STREAM_POLL, POLL_RD


PEER = """
import sys
sys.path.insert(0, %r)
from table.usbport import open_stream
from table.link import Link
from table.xfer import MemObjects, Transfers
read, write, name = open_stream()
sys.stderr.write(name + "\\n")
link = Link(read, write, key=bytes(32))
Transfers({1: MemObjects()}).install(link)
while True:
    link.poll()
"""


class PipeStream:
    def __init__(self, proc):
        self.proc = proc

    def write(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def read(self, n):
        fd = self.proc.stdout.fileno()
        r, _, _ = select.select([fd], [], [], 0.5)
        return os.read(fd, n) if r else b""


def test_repl_fallback_on_the_unix_port(tmp_path):
    script = tmp_path / "repl_peer.py"
    script.write_text(PEER % os.path.join(ROOT, "firmware"))
    proc = subprocess.Popen(
        [MICROPYTHON, str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stderr.readline() == b"repl\n"
        h = H.Link(PipeStream(proc), key=bytes(32), timeout=10)
        assert h.hello()["key_set"]
        every = bytes(range(256)) * 2
        assert h.echo(every) == every
        data = bytes((i * 13) & 0xFF for i in range(3000))
        h.put_object(1, 0, data)
        assert h.get_object(1, 0) == data
    finally:
        proc.kill()
        proc.wait()
