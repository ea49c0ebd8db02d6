"""bench/bench_house.py's parts that run here (the board runs are `python
bench house`'s and docs/board.md's): the probe on the unix port reports every
figure, scores the five house patterns with nothing allocated and counts them
on some wins; the simulator folded as the board gets it plays the same hand
as CPython's. No timing is asserted."""

import json
import os
import subprocess

import bench_house

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_probe_on_the_unix_port():
    plain, house = bench_house.rulesets()
    assert house.house_n == 5 and plain.house_n == 0
    r = bench_house.unix_probe(bench_house.probe_source(plain, house,
                                                        bench_house.random_wins(40, 42)))
    for k in ("plain_ruleset", "pattern_module", "house_ruleset", "plain_us", "house_us",
              "plain_us_median", "house_us_median"):
        assert isinstance(r[k], int) and r[k] > 0, (k, r)
    assert r["house_n"] == 5 and r["wins"] == 40
    assert r["wins_house_differs"] > 0  # the patterns counted on some of the wins
    assert r["alloc_per_score"] == 0


def test_the_folded_simulator_plays_cpythons_hand(tmp_path):
    from mjtable.referee import simcore
    from mjtable.rules import rulefile

    bench_house.sim_modules(str(tmp_path))
    for name in ("simcore.mpy", "patnames.mpy"):  # armv6m: the board's, not this port's
        os.remove(tmp_path / name)
    rs = rulefile.load(bench_house.YITIAOLONG)
    code = ("import sys\nsys.path.insert(0, %r)\nsys.path.insert(0, %r)\n"
            "import json\nfrom binascii import unhexlify\nfrom sichuan import ruleset as R\n"
            "import simcore\nrs = R.from_blob(unhexlify(%r))\n"
            "print(json.dumps(simcore.Sim(rs, %d).play_hand(False)))\n"
            % (os.path.join(ROOT, "firmware"), str(tmp_path), rs.to_blob().hex(),
               bench_house.SIM_SEED))
    out = subprocess.run([bench_house.MP, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    want = json.loads(json.dumps(simcore.Sim(rs, bench_house.SIM_SEED).play_hand(False)))
    assert got == want
    assert any(p[0] == "yitiaolong" for w in got["wins"] for p in w[5])  # the hand shows it
