"""Child processes started as from a terminal, for tests that stop them with
Ctrl-C (SIGINT)."""

import signal


def as_at_a_terminal():
    """preexec_fn: SIGINT unblocked and at its default in the child, as a shell
    starts a command; a test runner's process may hold it blocked or ignored
    (both are inherited across exec, and Python then raises no
    KeyboardInterrupt: the child never sees the Ctrl-C)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)
