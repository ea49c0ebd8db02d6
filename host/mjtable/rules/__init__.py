"""Rules as people write and read them: rule files (rulefile) with their
house patterns (housepat) and the line and column of each key (tomlpos),
the parameters' documentation (paramdoc), the names of seats, payments and
patterns (names)."""
