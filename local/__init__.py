"""The local runtime: the whole stack of template.yaml in one process tree, no Docker, no AWS."""
