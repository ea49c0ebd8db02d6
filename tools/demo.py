"""`make demo`: seed 002's worked example, one step at a time, through `mjtable`.

甲乙丙丁 play 血战到底 under the `xuezhan` preset (seed 002). Each step prints
the `mjtable` command a referee would type and what it answers.
"""

import os
import shlex
import subprocess
import sys

MJ = os.path.join(os.path.dirname(sys.executable), "mjtable")

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

SETTLEMENT = """\
Settlement (seed 002): 甲 is 花猪 (缺条, still holds 5条 7条 8条) and pays 乙, 丙, 丁
16 each; 乙 pays 丁 4 (查叫) and refunds the 6 of his 暗杠 (2 to each of 甲, 丙, 丁).
    甲 -2 -5 -48 +2 = -53    乙 +6 -5 +16 -4 -6 = +7
    丙 -2 +15 +16 +2 = +31   丁 -2 -5 +16 +4 +2 = +15     sum 0
"""


def run(args):
    print("  $ mjtable " + args)
    r = subprocess.run([MJ] + shlex.split(args), capture_output=True, text=True)
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
    print(SETTLEMENT)


if __name__ == "__main__":
    main()
