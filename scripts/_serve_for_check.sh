# Sourced by scripts/check-go-client and scripts/check-ts-client: start `darkroad serve` (in
# memory) in the background for the example clients to play against, and wait until it is
# ready. Needs $DARKROAD and $PYTHON; takes $PORT (the test suite hands one out from its own
# block, so no other test's server is there) or picks a free one; sets $PORT and $SERVER,
# and stops the server when the script exits.

PORT=${PORT:-$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
"$DARKROAD" serve --port "$PORT" --log-level warning &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null || true' EXIT
# Ready when /readyz answers and the server answering is still ours (a port taken by another
# process makes `serve` exit).
for attempt in $(seq 300); do
  kill -0 "$SERVER" 2>/dev/null || { echo "$(basename "$0"): darkroad serve exited" >&2; exit 1; }
  "$PYTHON" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$PORT/readyz', timeout=1)" \
    2>/dev/null && kill -0 "$SERVER" 2>/dev/null && break
  [ "$attempt" -lt 300 ] || { echo "$(basename "$0"): darkroad serve not ready after 30 s" >&2; exit 1; }
  sleep 0.1
done
