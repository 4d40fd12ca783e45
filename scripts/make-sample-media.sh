#!/usr/bin/env bash
# Creates ./media with a few generated sounds (used by `make run` when ./media is missing).
set -euo pipefail
dir=${1:-media}
mkdir -p "$dir/tones"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A chord with a slow tremolo, as MP3 with tags.
sox -n -r 44100 -c 2 "$tmp/chord.wav" synth 12 sine 220 sine 277.18 sine 329.63 tremolo 0.5 40 fade 0.05 12 1 vol 0.5
lame --quiet -b 192 --tt "Slow Chord" --ta "Tonearm Samples" --tl "Generated" "$tmp/chord.wav" "$dir/chord.mp3"
# A click track (for hearing sync) as WAV, and a sweep as FLAC.
sox -n -r 48000 -c 1 "$dir/tones/click-120bpm.wav" synth 0.01 sine 1000 vol 0.8 pad 0 0.49 repeat 15
sox -n -r 48000 -c 2 "$dir/tones/sweep.flac" synth 6 sine 100-4000 vol 0.4 fade 0.1 6 0.1
echo "sample media in $dir/"
