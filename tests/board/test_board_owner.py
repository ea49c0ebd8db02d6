"""One owner of the board's link (issue 43), on the emulated Pico (boardemu,
docs/board.md): `mjtable serve` holds the board's USB port, and live,
monitor, logs pull, info, rules push and match start all run at the same
time through it, called as always. The firmware deployed as a user does; no
hand is played (that is test_board_smoke's). Select with `-m board`.

Wall time: about 90 s on two idle cores (the deploy is 40 of it)."""

import json
import shutil
import signal
import subprocess
import tempfile

import pytest
from mjsim.boardemu import EmuBoard, skip_reason
from mjsim.proc import as_at_a_terminal

pytestmark = pytest.mark.board
if skip_reason():
    pytest.skip(skip_reason(), allow_module_level=True)

SLOW = "60"  # s: the emulated board answers several times slower than a real one


def table_api(base, until, limit):
    """/api/table/1 of a live server, once until(it) holds (None after `limit` s)."""
    import time
    import urllib.request

    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        with urllib.request.urlopen(base + "/api/table/1", timeout=10) as r:
            snap = json.loads(r.read())
        if until(snap):
            return snap
        time.sleep(0.5)
    return None


def test_every_command_at_once_through_one_owner_on_the_board(tmp_path, monkeypatch):
    import bench_live as live_bench

    run = tempfile.mkdtemp(prefix="mjrun")  # short: a Unix socket's path is
    monkeypatch.setenv("MJTABLE_RUN_DIR", run)
    b = EmuBoard(seed=5, workdir=str(tmp_path / "board"))
    owner = live = None
    try:
        with b:
            b.provision_files()  # the key and the tile map
            assert "the board answers: firmware" in b.deploy()
            cmd, env = b.mjtable_cmd(["serve", "--timeout", SLOW])
            owner = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
            assert owner.stdout.readline().startswith("serve: %s owned" % b.port)
            live, urls = live_bench.start_live("--table", b.port + "=Board", "--timeout", SLOW)
            arch = str(tmp_path / "archive.sqlite")
            runs = [["info", "--timeout", SLOW],
                    ["logs", "pull", "--all", "--no-ack", "--archive", arch, "--timeout", SLOW],
                    ["rules", "push", "chengdu", "--wait", "0", "--timeout", SLOW],
                    ["match", "start", "--timeout", SLOW]]
            procs = []
            for args in runs + [["monitor", "--brief", "--timeout", SLOW]]:
                cmd, env = b.mjtable_cmd(args)
                procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                              stderr=subprocess.PIPE, text=True,
                                              preexec_fn=as_at_a_terminal))
            snap = table_api(urls["public"], lambda x: x["link"] == "ok", 300)
            out = [p.communicate(timeout=600) + (p.returncode,) for p in procs[:-1]]
            mon = procs[-1]
            mon.send_signal(signal.SIGINT)  # Ctrl-C, as a user stops it
            mout, merr = mon.communicate(timeout=120)
            info = b.mjtable("info", "--timeout", SLOW).stdout
            tid = json.loads(b.mjtable("info", "--json", "--timeout", SLOW).stdout)["table_id"]
    finally:
        for p in (owner, live):
            if p is not None:
                p.terminate()
                p.wait(timeout=60)
        shutil.rmtree(run, ignore_errors=True)
    for args, (o, e, code) in zip(runs, out, strict=True):
        assert code == 0 and "Traceback" not in e, (args, o, e)
    assert "watching table" in mout and "Traceback" not in merr, (mout, merr)
    assert "key           set" in info and "chengdu" in info, info
    # live read the board meanwhile, through the same owner
    assert snap is not None and snap["link"] == "ok" and snap["id"] == tid, snap
    assert "match started" in out[3][0] and "chengdu" in out[2][0], out
