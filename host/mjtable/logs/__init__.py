"""Hand logs as files: the log format and its checks (logfmt), logs as JSON
(logjson), and archived logs replayed into hands (hands)."""
