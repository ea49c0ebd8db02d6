"""The folder of hand logs: naming, listing, free space, the reserve rule, ack.

Logs are files `<folder>/h<id>.log` (RecordLog format), id a u32 counting up
from 1, never reused. The logs on flash show the ids in use; the atomic store
file `<folder>/next` keeps the next id past the ones acked and deleted, and
is written at each ack, before the delete (not at each new hand: a file
write costs a ~1.2 KB block of heap, which a long-running table's fragmented
heap may not find at a hand's start).

The chain of logs: each new log's first record (T_LINK) holds the id and
final chain head of the log made before it (0 and zeros for a table's
first), so the host finds a log deleted before it took it (a gap) or an id
used twice. That log is the newest on flash, or, once acked, the one `next`
names: next id u32, then its id u32 and head 8 (written at its ack).

The rule that keeps logs safe: nothing here deletes a log except ack(log_id),
which the host sends after it holds the log (optionally proving it with the
log's chain head).  When free space falls below the reserve, or too many
logs wait for the host, can_start_hand() answers False with a reason code and
new_log() refuses: the table stops before a log could be lost, never after.
"""

import os

from micropython import const
from table import le, store
from table.recordlog import LogError, RecordLog

# can_start_hand() reasons
READY = const(0)
LOW_SPACE = const(1)  # free flash below the reserve: the host must take logs
TOO_MANY_LOGS = const(2)  # _MAX_LOGS logs wait for the host
NO_FS = const(3)  # the filesystem answered no statvfs (not mounted?)

T_LINK = const(5)  # record type: the log before, id u32 LE + chain head 8

# One hand log at its largest (~400 records of ~30 bytes = 12 KB, 3 blocks),
# plus littlefs copy-on-write room (the block being appended is rewritten
# elsewhere; a metadata pair may compact), plus a temp copy of the largest
# store file.  8 blocks of 4 KB.
_RESERVE_BYTES = const(32768)
_MAX_LOGS = const(200)
_PREFIX = "h"
_SUFFIX = ".log"


def _log_id(name):
    # "h12.log" -> 12; anything else -> -1
    if not (name.startswith(_PREFIX) and name.endswith(_SUFFIX)):
        return -1
    digits = name[len(_PREFIX) : -len(_SUFFIX)]
    if not digits or not digits.isdigit():
        return -1
    return int(digits)


class LogStore:
    """Hand logs under `folder` (created if missing).

    Opening it cleans `.tmp` leftovers and opens the newest log, the only one
    a power cut can have torn, repairing its tail.  What boot found is kept:
      cleaned   names of temp files removed
      repairs   [(log_id, bytes_cut, record_index)]
      damaged   [(log_id, reason, record_index, byte_offset)]
    """

    def __init__(self, folder, reserve=_RESERVE_BYTES, max_logs=_MAX_LOGS):
        self.folder = folder
        self.reserve = reserve
        self.max_logs = max_logs
        try:
            os.mkdir(folder)
        except OSError:
            pass  # exists
        self.cleaned = store.clean(folder)
        self.repairs = []
        self.damaged = []
        ids = self.list()
        status, data = store.load(self._next_path())
        self._prev = None  # type: tuple | RecordLog | None  # the log made last: (id, head) or it
        if status == store.OK and len(data) in (4, 16):
            self._saved = le.u32(data, 0)
            if len(data) == 16:
                self._prev = (le.u32(data, 4), bytes(data[8:16]))
        else:
            self._saved = 1
        self._next = self._saved
        if ids and ids[-1] >= self._next:  # the newest log on flash is past the counter
            self._next = ids[-1] + 1
        if ids:
            log = self.open_log(ids[-1])
            log.close()
            if self._prev is None or self._prev[0] < log.log_id:
                self._prev = (log.log_id, log.head())

    def next_id(self):
        """The id the next hand's log will have."""
        return self._next

    def _next_path(self):
        return self.folder + "/next"

    def path(self, log_id):
        return "%s/%s%d%s" % (self.folder, _PREFIX, log_id, _SUFFIX)

    def list(self):
        """Ids of the logs on flash (not yet acked), ascending."""
        ids = []
        for name in os.listdir(self.folder):
            i = _log_id(name)
            if i >= 0:
                ids.append(i)
        ids.sort()
        return ids

    def free_bytes(self):
        """Free bytes on the filesystem holding the logs (statvfs bsize * bavail)."""
        st = os.statvfs(self.folder)
        return st[0] * st[4]

    def can_start_hand(self):
        """(True, READY) or (False, reason): LOW_SPACE, TOO_MANY_LOGS, NO_FS."""
        try:
            free = self.free_bytes()
        except OSError:
            return False, NO_FS
        if free < self.reserve:
            return False, LOW_SPACE
        if len(self.list()) >= self.max_logs:
            return False, TOO_MANY_LOGS
        return True, READY

    def new_log(self):
        """Create the next hand log and return it open (a RecordLog).
        Raises LogError(reason) when can_start_hand() says no."""
        ok, why = self.can_start_hand()
        if not ok:
            raise LogError(why)
        log_id = self._next
        link = bytearray(12)
        p = self._link()
        if p is not None:
            le.put_u32(link, 0, p[0])
            link[4:12] = p[1]
        # The file is the id's record: a cut before it exists leaves the id
        # unused (nothing was logged under it), after, the boot sees it.
        log = RecordLog(self.path(log_id), create_id=log_id)
        self._next = log_id + 1
        self._prev = log
        log.append(T_LINK, link)  # a cut before it: the host reports a log without its link
        return log

    def _link(self):
        """(id, head) of the log made last, or None (a table's first log)."""
        p = self._prev
        if p is None or isinstance(p, tuple):
            return p
        return p.log_id, p.head()

    def open_log(self, log_id):
        """Open (check, repair a torn tail of) an existing log; records what it found."""
        log = RecordLog(self.path(log_id))
        if log.repaired is not None:
            self.repairs.append((log_id, log.repaired[0], log.repaired[1]))
        if log.damaged is not None:
            d = log.damaged
            self.damaged.append((log_id, d[0], d[1], d[2]))
        return log

    def ack(self, log_id, head=None):
        """The host holds log `log_id`: delete it.  If `head` (8 bytes) is given
        it must equal the log's chain head, else LogError and nothing deleted.
        KeyError if there is no such log."""
        p = self.path(log_id)
        try:
            os.stat(p)
        except OSError:
            raise KeyError(log_id) from None
        if head is not None:
            log = RecordLog(p)
            log.close()
            if log.repaired is not None or log.damaged is not None or log.head() != bytes(head):
                raise LogError("head mismatch, log %d kept" % log_id)
        n = self._next
        link = self._link()
        last = link is not None and link[0] == log_id  # the next log's link outlives it too
        if n > self._saved or last:  # count first: the id outlives its file
            b = bytearray(4 if link is None else 16)
            le.put_u32(b, 0, n)
            if link is not None:
                le.put_u32(b, 4, link[0])
                b[8:16] = link[1]
            store.write(self._next_path(), b)
            self._saved = n
            if last:
                self._prev = link  # not the RecordLog: its file is going
        os.remove(p)
