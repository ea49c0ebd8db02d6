"""Independent checks on several cores, for the host tests."""

import multiprocessing


def starmap(fn, args, jobs):
    """[fn(*a) for a in args], `jobs` at a time in forked workers (they start
    with the test's imports and state); an assertion in one fails the caller
    with its message."""
    if jobs > 1 and len(args) > 1:
        with multiprocessing.get_context("fork").Pool(min(jobs, len(args))) as pool:
            return pool.starmap(fn, args)
    return [fn(*a) for a in args]
