"""Rules as people write and read them: rule files (rulefile), the parameters'
documentation (paramdoc), the names of seats, payments and patterns (names)
and a win written out (winfmt)."""
