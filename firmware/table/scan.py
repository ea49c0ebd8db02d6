"""Scanning: each seat's rack and tray read in turn, filtered into where each
physical tile is.

Places: place = seat * 2 + antenna (ANT_RACK 0, ANT_TRAY 1), 0..7 for four
seats. NOWHERE (255) = on no antenna (in the wall, discarded, in a hand).

The filter never trusts one read (per tile, all counts in scans of a place):
- a tile on no antenna arrives at place P once P has seen it in `arrive`
  consecutive scans;
- a tile at place Q moves to P once P has seen it `arrive` times in a row and
  Q's latest scan missed it (a tile lifted from the rack onto the tray);
- a tile at Q that P keeps seeing while Q still sees it is in two places
  (`dual`): it stays at Q and the controller raises an alert until one of
  the two places has missed it `gone` times;
- a tile at Q is gone once Q has missed it in `gone` consecutive scans
  and the other antenna of Q's seat has missed it in `gone` - 1 since Q's
  first (a tile lifted from a rack often lands on its tray; reads of Q
  alone, however many, are no evidence of where it went), unless another
  place P has seen it since (it is moving): P's sighting stands until P
  has missed it in `gone` consecutive scans too. A tile seen by a place
  while its home still sees it, or arriving from nowhere, is forgotten at
  that place's first miss. Either rule missing made a 补杠 laid on the tray
  a discard (issue 38).
A UID that is not enrolled counts as an unknown tag at a place once the same
UID has been seen in `arrive` consecutive scans of that place (a phantom read
is random and does not repeat).
A tile in flux after a read is settled at once by asking for it by its UID
(ask, settle): each ask counts as a scan of that place for that tile alone.
A reader's field stays on from one read or ask to the next at the same
antenna (PN5180.keep_field): its tags stay powered, so only a field newly
on waits NXP's 5.2 ms guard time; the field of the reader used before is
switched off when another reader is used, so one field is on at a time.
All state is bytearrays sized at construction; a scan allocates nothing.
"""

from drivers.pn5180 import ANT_RACK, ANT_TRAY
from micropython import const

TILES = const(108)
NOWHERE = const(255)
_PLACES_PER_SEAT = const(2)


def place(seat, antenna):
    return seat * 2 + antenna


def seat_of(p):
    return p >> 1


class Scanner:
    """readers: one PN5180 driver per seat (its rack and tray antennas).
    enroll: table.enroll.Enrollment."""

    def __init__(self, readers, enroll, arrive=2, gone=4):
        if arrive < 1 or gone < 1:
            raise ValueError("arrive and gone are >= 1 scans")
        self.readers = readers
        for r in readers:
            r.keep_field = True
        self._lit = -1  # the seat whose reader's field may be on
        self.enroll = enroll
        self.arrive = arrive
        self.gone = gone
        n = len(readers) * _PLACES_PER_SEAT
        self.places = n
        self.loc = bytearray(b"\xff" * TILES)
        self.miss = bytearray(TILES)
        self.omiss = bytearray(TILES)  # misses at the other antenna of its seat since home's first
        self.cand = bytearray(b"\xff" * TILES)
        self.cand_n = bytearray(TILES)
        self.cmiss = bytearray(TILES)  # scans of the second place that missed a dual tile
        self.dual = bytearray(TILES)
        self.unknown = bytearray(n)  # consecutive scans with an unknown tag, per place
        self.unknown_uid = bytearray(8 * n)  # the last unknown UID seen at each place
        # reader errors per seat in a row (saturating), reads and asks of
        # either antenna alike: the chip answers or not, whichever is selected
        self.errors = bytearray(len(readers))
        self.skip = 0  # seats whose reader is down (bit per seat): not scanned
        self.scans = 0
        self.changes = 0  # bumped on every confirmed change (observers poll it)
        self.pending = 0  # tiles on their way to a new place (candidates)
        # of the place last read (scan_place): in_flux() and unsettled(), kept
        # by update()'s own walk so a read costs one walk of the tiles, not three
        self.flux = 0
        self.flux_first = TILES
        # called after each inventory and each tile asked for: the board
        # samples its keys there, as a read blocks for up to ~100 ms
        self.idle = None
        self._seen = bytearray(TILES)

    # --- reading -------------------------------------------------------

    def scan_seat(self, seat):
        """Inventory seat's rack then tray and update the filter (blocking)."""
        self.scan_place(seat * 2 + ANT_RACK)
        self.scan_place(seat * 2 + ANT_TRAY)

    def scan_place(self, p):
        """Inventory place p (seat * 2 + antenna) and update the filter;
        flux and flux_first are then p's."""
        if self.skip >> (p >> 1) & 1:
            self._flux_walk(p)
            return  # its reader is down: boards.pico Board.retry() takes it back
        r = self._reader(p)
        try:
            r.select_antenna(p & 1)
            r.inventory()
        except OSError:
            self._failed(p)
            self._flux_walk(p)
            return  # an unreadable place is not evidence that tiles left
        finally:
            if self.idle is not None:
                self.idle()
        self.errors[p >> 1] = 0
        self.update(p, r.uids, r.count)

    def _failed(self, p):
        if self.errors[p >> 1] < 255:
            self.errors[p >> 1] += 1

    def ask(self, p, t, tries):
        """Ask p's reader up to `tries` times for tile t by its UID
        (reader.find: a one-slot inventory masked with as many low UID bits as
        tell the enrolled tiles apart, 3 to 6 ms on the board where a rack's
        whole read takes 85 to 225) and feed each answer to the filter
        as a scan of p that looked for t alone. True if t answered; a reader
        error is no evidence either way."""
        if self.skip >> (p >> 1) & 1:
            return False
        r = self._reader(p)
        try:
            r.select_antenna(p & 1)
            k = r.find(self.enroll.uids, 8 * t, tries, self.enroll.ask_bits())
        except OSError:
            self._failed(p)
            return False
        finally:
            if self.idle is not None:
                self.idle()
        self.errors[p >> 1] = 0
        for _ in range(k):
            if self.loc[t] == p:
                self._missed_home(t)
            elif self.cand[t] == p:
                self._missed_cand(t)
            elif self.loc[t] == p ^ 1 and self.miss[t]:
                self._missed_other(t)
        if k < tries:
            self._seen_at(t, p)
        return k < tries

    def _reader(self, p):
        """p's reader, the field of the one used before switched off."""
        s = p >> 1
        if self._lit != s:
            self.fields_off()
            self._lit = s
        return self.readers[s]

    def fields_off(self):
        """Switch off the field left on (a reader that fails is left alone:
        its own errors count in scan_place and ask)."""
        if self._lit >= 0:
            try:
                self.readers[self._lit].rf_off()
            except OSError:
                pass
            self._lit = -1

    def unsettled(self, p, t0=0):
        """The first tile from t0 on that the reads left in flux at p: seen
        arriving there, or at home there and missed (not one in two places:
        that is an alert the reads resolve); TILES if none. update() inlines
        the same test in its walk (a call a tile would cost more on the board
        than the walk it saves): change both, test_scan checks they agree."""
        loc = self.loc
        cand = self.cand
        for t in range(t0, TILES):
            if self.dual[t]:
                continue
            if cand[t] == p and self.cand_n[t] < self.arrive:
                return t
            if loc[t] == p and self.miss[t]:
                return t
        return TILES

    def in_flux(self, p):
        """How many tiles unsettled() would give at p."""
        n = 0
        t = self.unsettled(p)
        while t < TILES:
            n += 1
            t = self.unsettled(p, t + 1)
        return n

    def settle(self, p, t):
        """Settle tile t, in flux at p, by asks. Arriving: its old place is
        asked first (the filter moves a tile only once its old place missed
        it), then p until it has arrived or is missed. Missed at home: p is
        asked until it answers or one ask short of gone; then the place that
        has seen it elsewhere, if one has, else the seat's other antenna as
        many times as p (a rack's tile laid on the tray is a move, not a
        tile gone), until it arrives there or is missed; then p once more.
        Within a few tens of ms, where reads would take a cycle. A tile
        still moving after that (seen elsewhere, then missed there) stays
        in flux at p, and the next settle asks again."""
        if self.cand[t] == p:
            self._settle_arriving(p, t)
        else:
            self._settle_missed(p, t)
        self._count_pending()

    def _settle_arriving(self, p, t):
        q = self.loc[t]
        if q != NOWHERE and not self.miss[t]:
            self.ask(q, t, 1)
            if not self.miss[t]:
                return  # still at its old place (in transit, in two places), or not asked
        while self.cand[t] == p and self.cand_n[t] < self.arrive and self.ask(p, t, 1):
            pass

    def _settle_missed(self, p, t):
        n = self.gone - 1 - self.miss[t]
        if n > 0 and self.ask(p, t, n):
            return  # there: a read missed it
        q = self.cand[t]
        # as many misses as home had: one would make a 杠 laid on the tray a discard
        n = self.gone - 1 - self.omiss[t]
        if q == NOWHERE and n > 0 and self.ask(p ^ 1, t, n):
            q = p ^ 1
        if q != NOWHERE:
            while (self.loc[t] == p and self.cand[t] == q and self.cand_n[t] < self.arrive
                   and self.ask(q, t, 1)):
                pass
        if self.loc[t] == p and self.miss[t]:
            self.ask(p, t, 1)

    def update(self, p, uids, count):
        """Feed one scan of place p: `count` UIDs of 8 bytes in `uids`."""
        self.scans += 1
        seen = self._seen
        unk = -1  # first unknown UID of this scan (index), or -1
        again = False  # the unknown UID of the last scan is here again
        en = self.enroll
        for k in range(count):
            t = en.lookup(uids, 8 * k)
            if t < 0:
                if unk < 0:
                    unk = k
                if self.unknown[p] and self._same_unknown(p, uids, 8 * k):
                    again = True
            else:
                seen[t] = 1
        if again:
            if self.unknown[p] < 255:
                if self.unknown[p] + 1 == self.arrive:
                    self.changes += 1
                self.unknown[p] += 1
        else:
            if self.unknown[p] >= self.arrive:
                self.changes += 1
            self.unknown[p] = 0
            if unk >= 0:  # a new unknown UID: count it from one (a phantom never repeats)
                b = 8 * p
                for i in range(8):
                    self.unknown_uid[b + i] = uids[8 * unk + i]
                self.unknown[p] = 1
        loc = self.loc
        cand = self.cand
        miss = self.miss
        cand_n = self.cand_n
        dual = self.dual
        arrive = self.arrive
        pend = 0
        flux = 0
        first = TILES
        o = p ^ 1
        for t in range(TILES):
            if seen[t]:
                seen[t] = 0
                self._seen_at(t, p)
            elif loc[t] == p:
                self._missed_home(t)
            elif cand[t] == p:
                self._missed_cand(t)
            elif loc[t] == o and miss[t]:
                self._missed_other(t)
            c = cand[t]  # each step changes tile t alone: its state is final here
            if c != NOWHERE:
                pend += 1
            if not dual[t] and (c == p and cand_n[t] < arrive or loc[t] == p and miss[t]):
                flux += 1  # unsettled()'s test, inlined: keep the two alike
                if first == TILES:
                    first = t
        self.pending = pend
        self.flux = flux
        self.flux_first = first

    def _flux_walk(self, p):
        self.flux = self.in_flux(p)
        self.flux_first = self.unsettled(p)

    def _count_pending(self):
        pend = 0
        for t in range(TILES):
            if self.cand[t] != NOWHERE:
                pend += 1
        self.pending = pend

    def _same_unknown(self, p, uids, off):
        u = self.unknown_uid
        b = 8 * p
        for i in range(8):
            if u[b + i] != uids[off + i]:
                return False
        return True

    def _seen_at(self, t, p):
        loc = self.loc
        if loc[t] == p:
            self.miss[t] = 0
            self.omiss[t] = 0
            return
        if self.cand[t] == p:
            if self.cand_n[t] < 255:
                self.cand_n[t] += 1
        else:
            self.cand[t] = p
            self.cand_n[t] = 1
        self.cmiss[t] = 0
        if self.cand_n[t] < self.arrive:
            return
        if loc[t] == NOWHERE or (self.miss[t] and not self.dual[t]):
            self._settle(t, p)
        elif not self.dual[t]:
            self.dual[t] = 1
            self.changes += 1

    def _settle(self, t, p):
        self.loc[t] = p
        self.miss[t] = 0
        self.omiss[t] = 0
        self.cand[t] = NOWHERE
        self.cand_n[t] = 0
        self.cmiss[t] = 0
        if self.dual[t]:
            self.dual[t] = 0
        self.changes += 1

    def _missed_home(self, t):
        self.miss[t] += 1
        if self.miss[t] < self.gone:
            return
        # gone from its place; if another place holds it firmly, it is there
        if self.cand[t] != NOWHERE:
            if self.cand_n[t] >= self.arrive:
                self._settle(t, self.cand[t])
            else:
                self.miss[t] = self.gone - 1  # seen once elsewhere: moving, not gone
            return
        if self.omiss[t] < self.gone - 1:
            self.miss[t] = self.gone - 1  # its seat's other antenna may hold it: ask there
            return
        self.loc[t] = NOWHERE
        self.miss[t] = 0
        self.omiss[t] = 0
        self.dual[t] = 0
        self.changes += 1

    def _missed_other(self, t):
        if self.omiss[t] < 255:
            self.omiss[t] += 1

    def _missed_cand(self, t):
        # A tile its home is missing and another place has seen is on its
        # way: one miss there is no more evidence than one at home, so the
        # sighting stands until that place has missed it `gone` times too
        # (issue 38: dropped at one miss, the home's next miss made a 补杠 a
        # discard). Only a tile its home still holds, or one from nowhere,
        # is dropped at once (a read that saw it by mistake).
        if self.miss[t] and self.cand[t] == self.loc[t] ^ 1:
            self._missed_other(t)
        if not self.dual[t] and not self.miss[t]:
            self.cand[t] = NOWHERE
            self.cand_n[t] = 0
            self.cmiss[t] = 0
            return
        self.cmiss[t] += 1
        if self.cmiss[t] >= self.gone:
            self.cand[t] = NOWHERE
            self.cand_n[t] = 0
            self.cmiss[t] = 0
            if self.dual[t]:
                self.dual[t] = 0
                self.changes += 1

    # --- queries -------------------------------------------------------

    def leaving(self, p, k=2):
        """True if a tile at place p has been missed in the last k scans or
        more (it is leaving, or the reads are poor): worth reading p again."""
        loc = self.loc
        miss = self.miss
        for t in range(TILES):
            if loc[t] == p and miss[t] >= k:
                return True
        return False

    def arriving(self, p):
        """A tile (or an unknown tag) seen at p but not yet in `arrive` scans:
        where one is now (a place if any is, else NOWHERE); -1 if none. Reading that place
        and then p again at once confirms the move (or not)."""
        q = NOWHERE if 0 < self.unknown[p] < self.arrive else -1
        cand = self.cand
        n = self.cand_n
        for t in range(TILES):
            if cand[t] == p and n[t] < self.arrive:
                if self.loc[t] != NOWHERE:
                    return self.loc[t]  # a move: its old place is read first
                q = NOWHERE
        return q

    def count_at(self, p):
        n = 0
        for t in range(TILES):
            if self.loc[t] == p:
                n += 1
        return n

    def dual_seat(self):
        """A seat that has a tile seen in two places (the tile's home), or -1."""
        for t in range(TILES):
            if self.dual[t]:
                return seat_of(self.cand[t]) if self.cand[t] != NOWHERE else seat_of(self.loc[t])
        return -1

    def tag_at(self, p):
        """UID (bytes) of a tag standing at place p: an unknown one seen in
        `arrive` scans, else the first enrolled tile there; None if none."""
        if self.unknown[p] >= self.arrive:
            return bytes(self.unknown_uid[8 * p : 8 * p + 8])
        for t in range(TILES):
            if self.loc[t] == p:
                return bytes(self.enroll.uids[8 * t : 8 * t + 8])
        return None

    def unknown_seat(self):
        """A seat with an unknown tag standing on one of its antennas, or -1."""
        for p in range(self.places):
            if self.unknown[p] >= self.arrive:
                return seat_of(p)
        return -1

    def seen(self):
        """Tiles on an antenna or on their way to one (0: the table is empty)."""
        n = 0
        for t in range(TILES):
            if self.loc[t] != NOWHERE or self.cand[t] != NOWHERE:
                n += 1
        return n

    def empty(self):
        """No tile on any antenna and no tile on its way to one."""
        for t in range(TILES):
            if self.loc[t] != NOWHERE or self.cand[t] != NOWHERE:
                return False
        return True

    def reset(self):
        """Forget every tile (a new table layout)."""
        for t in range(TILES):
            self.loc[t] = NOWHERE
            self.cand[t] = NOWHERE
            self.miss[t] = 0
            self.omiss[t] = 0
            self.cand_n[t] = 0
            self.cmiss[t] = 0
            self.dual[t] = 0
        self.pending = 0
        self.changes += 1
