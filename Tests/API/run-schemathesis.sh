#!/usr/bin/env bash
# Validates openapi.yaml and runs schemathesis (all checks, fixed seed) against the real
# server; the SSE path is tested separately (Tests/TonearmAPITests/EventsAPITests.swift).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${TONEARM_BIN:-$PWD/.build/debug/tonearm}
if ! command -v schemathesis >/dev/null 2>&1 || ! command -v openapi-spec-validator >/dev/null 2>&1; then
  python3 -m pip install -q schemathesis openapi-spec-validator 2>/dev/null \
    || python3 -m pip install -q --break-system-packages schemathesis openapi-spec-validator
fi
openapi-spec-validator openapi.yaml

dir=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$dir"' EXIT
mkdir -p "$dir/media"
sox -n -r 48000 -c 1 "$dir/media/tone.wav" synth 0.5 sine 440 vol 0.3
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$BIN" serve --listen 127.0.0.1:$port --output null --media-root "$dir/media" --state-dir "$dir/state" \
  --log-level warning --max-upload 1000000 --max-render-seconds 5 &
pid=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
# A player for the {id} paths to find.
curl -fs -X PUT "http://127.0.0.1:$port/api/v1/players/p" -H 'Content-Type: application/json' \
  -d "{\"url\": \"file://$dir/media/tone.wav\"}" >/dev/null
# A node for the /api/v1/nodes/{id} paths to find.
curl -fs -X POST "http://127.0.0.1:$port/api/v1/nodes" -H 'Content-Type: application/json' -d '{"id": "p"}' >/dev/null

schemathesis --config-file Tests/API/schemathesis.toml run openapi.yaml --url "http://127.0.0.1:$port" --checks all --seed 20261122 \
  --max-examples ${MAX_EXAMPLES:-40} --exclude-path /api/v1/events --workers 1
kill -0 $pid  # the server is still up after all of it
