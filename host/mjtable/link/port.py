"""Finding the table and opening a link session to it.

The table is found by pyserial's port list and the RP2040's USB vendor id
0x2E8A (mjtable.link.find_table_ports prefers the link's CDC interface over the
REPL's); `--port` takes a device or a pseudo-terminal path (`mjtable
virtual-table` prints one). When a process owns that port (`mjtable serve`,
`mjtable live`: link/owner.py), the session goes through it. The table key,
needed for commands that change anything, comes from `--key HEX`, else
$MJTABLE_KEY, else the file $MJTABLE_KEYFILE or ~/.config/mjtable/key (hex).
"""

from __future__ import annotations

import os

from mjtable import BadInput, LinkTrouble, PortBusy, seconds
from mjtable.link import client as L
from mjtable.link import owner
from mjtable.logs import logfmt


def add_arguments(p, key: bool = True) -> None:
    p.add_argument("--port", metavar="P", default=None,
                   help="serial device or pty path of the table (default: found by USB id)")
    p.add_argument("--timeout", type=seconds, default=5.0, help="seconds to wait for a reply")
    if key:
        p.add_argument("--key", metavar="HEX", default=None,
                       help="the table key (default $MJTABLE_KEY or ~/.config/mjtable/key)")


def key_file() -> str:
    return os.environ.get("MJTABLE_KEYFILE") or os.path.join(
        os.path.expanduser("~"), ".config", "mjtable", "key")


def parse_key(text: str, where: str) -> bytes:
    try:
        k = bytes.fromhex(text.strip())
    except ValueError:
        raise BadInput("%s: the key must be 64 hex digits" % where) from None
    if len(k) != 32:
        raise BadInput("%s: the key must be 32 bytes (64 hex digits), got %d" % (where, len(k)))
    return k


def load_key(arg: str | None):
    """The table key from --key, $MJTABLE_KEY or the key file; None if none."""
    if arg:
        return parse_key(arg, "--key")
    env = os.environ.get("MJTABLE_KEY")
    if env:
        return parse_key(env, "MJTABLE_KEY")
    path = key_file()
    if os.path.exists(path):
        with open(path) as f:
            return parse_key(f.read(), path)
    return None


def save_key(key: bytes) -> str:
    path = key_file()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(key.hex() + "\n")
    return path


def find_port() -> str:
    found = L.find_table_ports()
    if not found:
        raise BadInput("no table found (no USB serial port with vendor id 0x2E8A); give --port")
    return found[0]


def connect(args, need_key: bool = False) -> L.Link:
    """An open session (HELLO done) with the table of args.port."""
    port = args.port or find_port()
    key = load_key(getattr(args, "key", None))
    if need_key and key is None:
        raise BadInput("this command changes the table: it needs the table key "
                       "(--key, $MJTABLE_KEY or %s)" % key_file())
    ser = _owners(port, args.timeout)
    if ser is None:
        try:
            ser = L.open_port(port, timeout=min(args.timeout, 1.0))
        except Exception as e:  # pyserial's SerialException, OSError
            if not L.port_busy(e):
                raise BadInput("cannot open %s: %s" % (port, e)) from None
            # an owner may have taken the port since it was looked for: through it
            ser = _owners(port, args.timeout)
            if ser is None:
                raise PortBusy(busy(port)) from None
    link = L.Link(ser, key=key, timeout=args.timeout)
    try:
        link.hello()
    except L.LinkError as e:
        ser.close()
        raise LinkTrouble("%s: the table does not answer (%s); nothing was sent to it: check "
                          "the cable and its power, then run this again" % (port, e)) from None
    return link


def busy(port: str) -> str:
    return ("%s is in use by another program that does not share it (an mjtable command "
            "that opened it alone, or mpremote): nothing was sent to the table. Run this "
            "again once that one has finished; `mjtable serve --port %s` lets every "
            "mjtable command use the table at once" % (port, port))


def _owners(port: str, timeout: float):
    """A stream through the process that owns `port` (link/owner.py), or None
    when none does; PortBusy or LinkTrouble when it cannot serve the table."""
    try:
        return owner.open_stream(port, timeout)
    except owner.Refused as e:
        if e.state == owner.BUSY:
            raise PortBusy(busy(port)) from None
        raise LinkTrouble("%s: %s; nothing was sent to the table: run this again once its "
                          "owner has it back" % (port, e)) from None


def trouble(e: Exception) -> LinkTrouble:
    """The one line for a link that failed mid-command (a LinkError, or the
    serial port gone: the cable pulled): what happened, that nothing was
    lost, what to run next."""
    what = L.describe(e) if isinstance(e, L.LinkError) else "the port failed (%s)" % e
    return LinkTrouble("the table's link failed: %s. Nothing was lost: a log stays on the "
                       "table until it is archived and acknowledged, a transfer the table has "
                       "not committed is not used; run the command again" % what)


def table_hex(link: L.Link) -> str:
    return link.table_id.hex()


def table_name(link: L.Link) -> str:
    """The table's id for people: its name (TBLA0001) when printable, else hex."""
    return logfmt.table_name(link.table_id.hex())
