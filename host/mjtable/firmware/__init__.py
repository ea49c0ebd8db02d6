"""The firmware as the host handles it: compiled with mpy-cross (build, with
the constants folded by constfold) for the board or this machine's unix port."""
