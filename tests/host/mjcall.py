"""`mjtable` run in the test's process, for the host tests."""

from mjtable import cli


def call(capsys, *argv):
    """(exit code, stdout, stderr) of `mjtable ARGV...` (cli.main)."""
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err
