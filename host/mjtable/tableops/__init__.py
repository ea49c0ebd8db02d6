"""What the host does with a table over its link: rulesets (rules), hand logs
into an archive (logs), the table's INFO for people (info), the table's
self-test judged seat by seat (selftest). Commands and the live view call
these; none of them prints but where it takes a `say`."""
