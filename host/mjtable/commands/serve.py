"""`mjtable serve [--port P]`: own the table's link, for every other command.

A table has one port and one link session; this process holds them and
serves a local socket (mjtable.link.owner), through which every command
given the same --port (live, monitor, logs pull, info, rules push, match
start ...) goes at the same time, called as before. `mjtable live` owns the
link itself when nothing else does. Prints `serve: PORT ...` once it owns
the port, then each change of the table's state; runs until Ctrl-C.
"""

from __future__ import annotations

import signal
import sys

from mjtable import PortBusy
from mjtable.link import owner
from mjtable.link import port as findport


def add_parsers(sub):
    p = sub.add_parser("serve", help="own the table's link; the other commands share it")
    findport.add_arguments(p, key=False)
    p.set_defaults(func=serve)


def serve(args):
    port = args.port or findport.find_port()
    say = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
    o = owner.serve(port, args.timeout, say=say)
    if o is None:
        raise PortBusy("%s is owned already by another process (mjtable serve or live): "
                       "the other commands go through it" % port)
    print("serve: %s owned; the other commands share it (socket %s)" % (port, o.path),
          flush=True)
    signal.signal(signal.SIGTERM, lambda *a: o.stop())
    try:
        while o.is_alive():
            o.join(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        o.stop()
        o.join(10)
    return 0
