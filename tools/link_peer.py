# The firmware end of the host link on a tty, under the MicroPython unix port, with
# in-memory objects behind the transfer commands (kinds 1 rules, 2 logs, 3 enrollment).
#   micropython tools/link_peer.py PATH [options]   a tty path (a pty slave): set raw,
#                                                   VMIN=0 so reads never wait
#   micropython tools/link_peer.py --fd N [options] an inherited fd (a pty master the
#                                                   parent made non-blocking)
# options: --key HEX (32-byte table key), --button (the key button was held at boot),
#          --id TEXT (8-byte table id)
# It prints "link_peer: ready" on stdout once listening, and runs until killed.
# Host end: host/mjtable/link.py; tests: tests/host/test_link.py.
import select
import sys
import time

ROOT = __file__.rsplit("/", 2)[0] if "/" in __file__ else ".."
if ROOT == "tools":
    ROOT = "."
sys.path.insert(0, ROOT + "/firmware")
sys.path.insert(0, ROOT + "/sim")

from mjsim import ptyport  # noqa: E402
from table import frame as F  # noqa: E402
from table.link import Link  # noqa: E402
from table.xfer import MemObjects, Transfers  # noqa: E402


def parse(argv):
    opts = {"path": None, "fd": -1, "key": None, "button": False, "id": b"LINKPEER"}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--fd":
            i += 1
            opts["fd"] = int(argv[i])
        elif a == "--key":
            i += 1
            opts["key"] = bytes.fromhex(argv[i])
        elif a == "--button":
            opts["button"] = True
        elif a == "--id":
            i += 1
            opts["id"] = (argv[i].encode() + b"\x00" * F.ID_LEN)[: F.ID_LEN]
        else:
            opts["path"] = a
        i += 1
    if opts["path"] is None and opts["fd"] < 0:
        print("usage: link_peer.py PATH|--fd N [--key HEX] [--button] [--id TEXT]")
        sys.exit(2)
    return opts


def main():
    opts = parse(sys.argv[1:])
    f = ptyport.open_pty("fd:%d" % opts["fd"] if opts["fd"] >= 0 else opts["path"])
    read, write = ptyport.stream(f)

    link = Link(
        read,
        write,
        key=opts["key"],
        key_button_held=lambda: opts["button"],
        table_id=opts["id"],
        info=lambda: b"fw=link_peer\nproto=%d\n" % F.VERSION,
    )
    kinds = (F.OBJ_RULES, F.OBJ_LOG, F.OBJ_ENROLL)
    Transfers({k: MemObjects() for k in kinds}).install(link)
    p = select.poll()
    p.register(f, select.POLLIN)
    # termios.setraw flushes pending input, so a host must wait for this line
    print("link_peer: ready")
    while True:
        busy = False
        while link.poll():
            busy = True
        if not busy:
            # wait for input, or for room to send when a reply is held back
            p.modify(f, select.POLLIN if link.idle() else select.POLLIN | select.POLLOUT)
            ev = p.poll(20)
            if ev and ev[0][1] & (select.POLLHUP | select.POLLERR):
                time.sleep_ms(20)  # the host side is closed; wait for it to come back


main()
