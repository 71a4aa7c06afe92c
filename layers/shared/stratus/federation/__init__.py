"""ActivityPub plumbing shared by the inbox, delivery and remote resolution
(docs/federation.md): HTTP signatures and signed server-to-server requests."""
