"""What the host does with a table over its link: rulesets (rules), hand logs
into an archive (logs), the table's INFO for people (info). Commands and the
live view call these; none of them prints but where it takes a `say`."""
