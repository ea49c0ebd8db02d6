# main.py of the power-cut test (tests/board/test_faults_board.py): each boot
# opens the hand logs as the table's boot does (table.logstore: a torn tail
# cut off and reported), checks every log, then writes one hand's records
# as the controller does, saying after each append that it returned.
from table.logstore import LogStore

ls = LogStore("logs")
print("BOOT repairs=%r damaged=%r" % (ls.repairs, ls.damaged))
for i in ls.list():
    lg = ls.open_log(i)
    print("LOG %d %d %r" % (i, lg.count, lg.verify()))
    lg.close()
lg = ls.new_log()
print("NEW %d" % lg.log_id)
for k in range(RECORDS):  # noqa: F821 (the test puts RECORDS = N first)
    lg.append(1 if k == 0 else 2, bytes((k,)) * (14 if k == 0 else 5))
    print("OK %d %d" % (lg.log_id, k))
lg.close()
print("DONE")
