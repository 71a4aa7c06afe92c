"""The ActivityPub inbox (docs/federation.md, "Inbox"): `ingress` checks what a remote server
POSTs (size, shape, HTTP signature, key owner = actor, domain policy) and queues it;
`worker` runs each queued activity once, dispatching by type to one module per activity
(`follow`, `accept`, `undo`, `create` ...), each a use case over the services that own the
data it changes."""
