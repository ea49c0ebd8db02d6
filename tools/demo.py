"""`make demo`: seed 002's worked example, one step at a time, through `mjtable`.

甲乙丙丁 play 血战到底 under the `xuezhan` preset (seed 002). Each step prints
the `mjtable` command a referee would type and what it answers.
"""

import os
import shlex
import subprocess
import sys

MJ = os.path.join(os.path.dirname(sys.executable), "mjtable")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # paths in STEPS, SETTLE

STEPS = (
    ("乙 draws the fourth 9筒 and declares 暗杠: 甲, 丙, 丁 pay gang_an = 2 each (下雨).",
     None),
    ("丙 (缺筒) is ready on 5万, 6万 and 9万:",
     "waits 1112346678999m --void p"),
    ("丙 draws 5万 and wins: 清一色, 2 番, base 4; 甲, 乙, 丁 pay 4 + 1 = 5 each.",
     "calc 1112346678999m --win 5m --void p --self-drawn"),
    ("The wall runs out. 丁 (缺万) holds seven pairs waiting on 4条:",
     "waits 113366p557799s4s --void m"),
    ("查大叫: 乙 is not ready and pays 丁 the largest value, as a discard win:",
     "calc 113366p557799s4s --win 4s --void m"),
    ("The same answer from the MicroPython unix port, the firmware's interpreter:",
     "calc 113366p557799s4s --win 4s --void m --json --engine micropython"),
)

# The settlement is the engine's, from the referee's script of the whole hand.
SETTLE = "settle examples/settle/seed002.txt"


def run(args):
    print("  $ mjtable " + args)
    r = subprocess.run([MJ] + shlex.split(args), capture_output=True, text=True, cwd=ROOT)
    out = (r.stdout + r.stderr).rstrip()
    print("\n".join("    " + line for line in out.splitlines()))
    print()
    return r.returncode


def main():
    print("Seed 002 worked example, xuezhan preset\n")
    for i, (say, args) in enumerate(STEPS, 1):
        print("%d. %s" % (i, say))
        if args and run(args) not in (0, 1):
            sys.exit("demo step %d failed" % i)
    print("%d. The whole hand as a referee's script (examples/settle/seed002.txt), settled by\n"
          "   the game engine: 花猪 (甲), 查叫 (乙 pays 丁), 退杠钱 (乙), every payment and why\n"
          "   (mjtable names the seats as the table labels them: 甲乙丙丁 = East South West North):"
          % (len(STEPS) + 1))
    if run(SETTLE) != 0:
        sys.exit("demo settlement failed")


if __name__ == "__main__":
    main()
