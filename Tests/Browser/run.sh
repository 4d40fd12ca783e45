#!/usr/bin/env bash
# The browser test of the control page: installs what it needs (Debian's chromium and
# chromium-driver, selenium and pytest), builds the server if TONEARM_BIN is not given,
# and runs pytest. Arguments are passed to pytest.
set -euo pipefail
cd "$(dirname "$0")/../.."
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)

missing=""
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
command -v chromedriver >/dev/null 2>&1 || missing="$missing chromium-driver"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
command -v ffmpeg >/dev/null 2>&1 || missing="$missing ffmpeg"
python3 -m pip --version >/dev/null 2>&1 || missing="$missing python3-pip"
if [ -n "$missing" ]; then
  echo "installing:$missing"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

if ! python3 -c 'import selenium, pytest' >/dev/null 2>&1; then
  echo "installing: selenium pytest (pip)"
  # Debian's system Python refuses plain pip installs (PEP 668); only then override it.
  python3 -m pip install -q selenium pytest 2>/dev/null \
    || python3 -m pip install -q --break-system-packages selenium pytest
fi

if [ -z "${TONEARM_BIN:-}" ]; then
  ${SWIFT:-swift} build --product tonearm
  export TONEARM_BIN="$PWD/.build/debug/tonearm"
fi

exec python3 -m pytest -p no:cacheprovider Tests/Browser "$@"
