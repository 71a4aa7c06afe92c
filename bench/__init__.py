"""The measurements of docs/performance.md (`make bench`, `python -m bench [PART]`), run against
the local stack (`local/`: the emulator and runtime behind `make dev`), which they import and
which never imports them: cold starts, read rounds, the cost of a realistic mix per MAU, idle
cost, behaviour at scale, latency, memory."""
