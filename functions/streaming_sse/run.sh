#!/bin/sh
# Lambda Web Adapter start command (template.yaml: StreamingSseFunction): uvicorn serves the
# SSE app on $PORT; the adapter streams its responses through the function URL.
PATH="/var/runtime:$PATH" exec python -m uvicorn --port "${PORT:-8080}" --no-access-log app:app
