"""The host's side of the table link (docs/protocol.md): the protocol's codes,
the wire format, the Link session and finding the table's port and key."""
