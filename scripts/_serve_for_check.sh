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
# process makes `serve` exit). One Python process polls (a new one every 0.1 s cost 60 ms of CPU
# each: a second of CPU a start).
"$PYTHON" - "$PORT" "$SERVER" "$(basename "$0")" <<'READY' || exit 1
import os, sys, time, urllib.request
port, server, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def alive() -> bool:
    try:
        os.kill(server, 0)
    except OSError:
        return False
    return True
for attempt in range(300):
    if not alive():
        sys.exit(f"{name}: darkroad serve exited")
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1)
    except OSError:
        time.sleep(0.1)
        continue
    if alive():
        sys.exit(0)
sys.exit(f"{name}: darkroad serve not ready after 30 s")
READY
