"""The link protocol's numbers, each defined here once (docs/protocol.md; the
firmware's side: table/link.py, table/hostcmds.py, table/hostlink.py and
table/controller.py, checked against these by tests/host/test_tablecmd_states.py
and tests/host/test_link.py)."""

VERSION = 1  # the frame format

# commands: the link's own, then the table's (docs/protocol.md)
CMD_HELLO, CMD_INFO, CMD_ECHO, CMD_SETKEY = 0x01, 0x02, 0x03, 0x04
CMD_GET, CMD_PUT, CMD_COMMIT, CMD_STAT = 0x10, 0x11, 0x12, 0x13
CMD_LOGS, CMD_ACK, CMD_CLOCK, CMD_MATCH, CMD_WATCH, CMD_TAG = 0x20, 0x21, 0x22, 0x23, 0x24, 0x25
CMD_SELFTEST = 0x26  # between hands: the table checks its chips (mjtable.tableops.selftest)
AUTH_CMDS = frozenset({CMD_PUT, CMD_COMMIT})  # the link MACs these itself
# every request the table checks a MAC on (the firmware's link.register(..., True)
# and table.xfer): a relay must keep their sequence numbers (link/owner.py)
SIGNED_CMDS = frozenset({CMD_PUT, CMD_COMMIT, CMD_ACK, CMD_CLOCK, CMD_MATCH})
# HELLO's flags: the table's (1 a key is set, 2 the key button held at boot), and
# the host's own: the session is an owner's, relayed to this client (link/owner.py)
FLAG_KEY, FLAG_KEY_BUTTON, FLAG_RELAYED = 1, 2, 0x80
MATCH_START, MATCH_END = 1, 2  # CMD_MATCH's first byte

# object kinds of GET/PUT/COMMIT/STAT
OBJ_RULES, OBJ_LOG, OBJ_ENROLL = 1, 2, 3

# a reply's code is the request's | REPLY; events are EVENT and up
REPLY, EVENT, NO_REQUEST = 0x80, 0xC0, 0xFF
EV_GAME = 0x40  # WATCH's event: one hand-log record as the table writes it

# statuses of an error reply
E_FRAME, E_CRC, E_LEN, E_VERSION, E_UNKNOWN, E_AUTH, E_REPLAY, E_BUSY = 1, 2, 3, 4, 5, 6, 7, 8
E_ARG, E_OFFSET, E_STATE, E_NOKEY, E_INTERNAL, E_DENIED, E_CHECK = 9, 10, 11, 12, 13, 14, 15
ERRORS = {1: "E_FRAME", 2: "E_CRC", 3: "E_LEN", 4: "E_VERSION", 5: "E_UNKNOWN", 6: "E_AUTH",
          7: "E_REPLAY", 8: "E_BUSY", 9: "E_ARG", 10: "E_OFFSET", 11: "E_STATE", 12: "E_NOKEY",
          13: "E_INTERNAL", 14: "E_DENIED", 15: "E_CHECK"}

# INFO `state`: the firmware's table.controller states, by number
STATES = ("waiting for an empty table", "a hand in play", "hand over: clear the table",
          "log store full", "match over", "waiting for the deal")
DEAL_WAIT = 5  # a hand started, its deal not yet begun (the firmware's hostlink.DEAL_WAIT)

# INFO `keys`: why the last key did nothing (the firmware's table.controller K_*)
KEY_WHY = ("acted", "no hand in play", "the table first (an alert)", "not a key for that moment",
           "a long press that means nothing there", "refused by the rules")

# INFO `usb`: what the board's USB lets in besides the link (docs/image.md)
USB_STATES = {"locked": "locked (only the link answers)",
              "maint": "maintenance (key button held at boot: REPL and deploy open)",
              "open": "open (no key yet: REPL and deploy open)"}

RP2040_VID = 0x2E8A  # Raspberry Pi: the USB vendor id of the table's port
