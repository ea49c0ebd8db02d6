"""`mjtable virtual-table [--rules PRESET] [--bots]`: a table without hardware.

Starts the firmware end (tools/hostlink_peer.py: the link, the host commands,
LittleFS storage in a file, bots playing hands) on the MicroPython unix port
behind a pseudo-terminal and prints `port: PATH` as its first line; every other
command then works with `--port PATH`. Runs until stopped (Ctrl-C).

The table key is the host's key (findport: --key, $MJTABLE_KEY, the key file);
with none, a new one is made and saved in the key file so the other commands
find it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tty

from . import BadInput, findport

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def add_parsers(sub):
    p = sub.add_parser("virtual-table", help="run a simulated table behind a pty")
    p.add_argument("--rules", metavar="PRESET", default=None, help="ruleset of a fresh table")
    p.add_argument("--bots", action="store_true", help="bots play hands continuously")
    p.add_argument("--hands", type=int, default=0, help="hands played at start (logs to pull)")
    p.add_argument("--pace", type=int, default=300, help="ms per bot action (default 300)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--flash", metavar="IMG", default=None,
                   help="LittleFS image file (default: build/virtual-flash.img)")
    p.add_argument("--fresh", action="store_true", help="start from an empty volume")
    p.add_argument("--key", metavar="HEX", default=None, help="table key (default: the host's)")
    p.add_argument("--button", action="store_true", help="the key button is held at boot")
    p.add_argument("--id", default="VIRTUAL1", help="table id (8 characters)")
    p.set_defaults(func=run)


def micropython() -> str:
    here = os.path.join(os.path.dirname(sys.executable), "micropython")
    return here if os.path.exists(here) else "micropython"


def command(args, fd: int) -> list:
    peer = os.path.join(ROOT, "tools", "hostlink_peer.py")
    if not os.path.exists(peer):
        raise BadInput("virtual-table needs the source tree (%s not found)" % peer)
    cmd = [micropython(), peer, "--fd", str(fd), "--id", args.id, "--seed", str(args.seed),
           "--pace", str(args.pace)]
    cmd += ["--flash", args.flash or os.path.join(ROOT, "build", "virtual-flash.img")]
    for flag in ("bots", "fresh", "button"):
        if getattr(args, flag):
            cmd.append("--" + flag)
    if args.rules:
        cmd += ["--rules", args.rules]
    if args.hands:
        cmd += ["--hands", str(args.hands)]
    key = findport.load_key(args.key)
    if key is None and not args.button:
        key = os.urandom(32)
        path = findport.save_key(key)
        print("key: new table key saved in %s" % path, file=sys.stderr)
    if key is not None:
        cmd += ["--key", key.hex()]
    return cmd


def start(args):
    """(process, pty path, slave fd): the firmware end running behind a pty."""
    if args.rules:
        from . import rulefile

        rulefile.preset(args.rules)  # a clear error for an unknown preset
    os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    os.set_blocking(master, False)
    proc = subprocess.Popen(command(args, master), pass_fds=(master,), stdout=subprocess.PIPE,
                            text=True)
    os.close(master)
    line = proc.stdout.readline()
    if line.strip() != "hostlink_peer: ready":
        proc.kill()
        raise BadInput("the virtual table did not start: %s" % line.strip())
    return proc, path, slave


def _exit_on_signal(signum, frame):
    raise SystemExit(0)  # so the finally below stops the firmware end too


def run(args):
    import signal

    proc, path, slave = start(args)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _exit_on_signal)
    print("port: %s" % path, flush=True)
    try:
        for line in proc.stdout:  # anything the firmware prints
            print(line, end="", flush=True)
        return proc.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait()
        os.close(slave)
