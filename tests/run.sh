#!/usr/bin/env bash
# run.sh: installs what is missing, builds, and runs every test with ctest.
# Usage: tests/run.sh [extra ctest arguments, e.g. -R conformance]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../experiments/setup.sh"
cd "$HS_BUILD"
ctest --output-on-failure -j"$(nproc)" "$@"
