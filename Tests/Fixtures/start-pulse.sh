#!/bin/sh
# Makes sure a PulseAudio server with a null sink is running, so the real ALSA code path
# (ALSA `pulse` plugin -> PulseAudio -> null sink) can be exercised on machines without a
# sound card. Works as root (PulseAudio warns but runs in per-user mode) and as a user.
#
# Prints the server address (unix:DIR/native) on stdout; use it as PULSE_SERVER for
# clients, e.g.   export PULSE_SERVER="$(Tests/Fixtures/start-pulse.sh)"
# Exits non-zero with a message on stderr when the server cannot be started.
#
# Needs: pulseaudio, pulseaudio-utils (pactl), libasound2-plugins (the ALSA pulse plugin).
# Override the runtime directory with TONEARM_PULSE_DIR.
set -eu

dir="${TONEARM_PULSE_DIR:-/tmp/tonearm-pulse-$(id -u)}"
server="unix:$dir/native"

alive() { pactl -s "$server" info >/dev/null 2>&1; }

for tool in pulseaudio pactl; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "start-pulse.sh: '$tool' not found (apt-get install pulseaudio pulseaudio-utils libasound2-plugins)" >&2
        exit 1
    }
done

if alive; then echo "$server"; exit 0; fi

mkdir -p "$dir"
chmod 700 "$dir"
# One starter at a time (several test processes may race here).
exec 9>"$dir.lock"
if command -v flock >/dev/null 2>&1; then flock -w 20 9 || true; fi
if alive; then echo "$server"; exit 0; fi

# A stale pid file from a dead server makes pulseaudio refuse to start.
rm -f "$dir/pid" "$dir/native"
# -n: no default.pa (no hardware probing); a null sink and the native socket only.
# --exit-idle-time=-1: never exit when idle. HOME must exist for the cookie/config lookup.
HOME="${HOME:-/root}" PULSE_RUNTIME_PATH="$dir" PULSE_STATE_PATH="$dir/state" \
    pulseaudio --daemonize=yes --use-pid-file=yes --exit-idle-time=-1 --disallow-exit=yes \
        --disable-shm=no -n \
        --load="module-null-sink sink_name=tonearm_null" \
        --load="module-native-protocol-unix auth-anonymous=1 socket=$dir/native" \
        --log-target="file:$dir/log" --log-level=notice \
    || { echo "start-pulse.sh: pulseaudio failed to start; log: $dir/log" >&2; cat "$dir/log" >&2 2>/dev/null || true; exit 1; }

i=0
while [ $i -lt 50 ]; do
    if alive; then echo "$server"; exit 0; fi
    sleep 0.1
    i=$((i + 1))
done
echo "start-pulse.sh: pulseaudio started but $server does not answer; log: $dir/log" >&2
cat "$dir/log" >&2 2>/dev/null || true
exit 1
