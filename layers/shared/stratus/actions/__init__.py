"""State changes that more than one entry point makes — an API use case and a queue worker —
built on the read side and repository verbs (posting a status: `POST /api/v1/statuses`, and the
timers worker publishing a scheduled one). api/ and workers/ never import each other; what they
share lives here."""
