"""The host link's byte stream on the unix port: a pseudo-terminal.

open_pty(spec) returns the file (for select.poll) and stream(f) its
(read, write) for table.link.Link. spec is "fd:N", a pty master inherited
from the parent (which made it non-blocking), or a tty path, set raw with
VMIN 0 so a read returns what is there, possibly nothing. The board uses
table.usbport instead.
"""


def _raw_tty(path):
    import termios  # type: ignore[import-not-found]  # unix port only

    f = open(path, "r+b")
    fd = f.fileno()
    termios.setraw(fd)
    attr = termios.tcgetattr(fd)
    attr[6][6] = 0  # VMIN
    attr[6][5] = 0  # VTIME
    termios.tcsetattr(fd, termios.TCSANOW, attr)
    return f


def open_pty(spec):
    return open(int(spec[3:]), "r+b") if spec.startswith("fd:") else _raw_tty(spec)


def stream(f):

    def read(mv):
        try:
            return f.readinto(mv)
        except OSError:  # EIO on a pty master while no host holds the slave
            return 0

    def write(mv):
        try:
            return f.write(mv)
        except OSError:
            return len(mv)  # nobody listening: the reply is lost, as on a cut cable

    return read, write
