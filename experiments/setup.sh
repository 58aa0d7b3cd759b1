#!/usr/bin/env bash
# setup.sh: installs what hybridsim needs (Debian packages) if missing, then configures and builds.
# Sourced by tests/run.sh and experiments/quickstart.sh; sets HS_ROOT and HS_BUILD.
# Usage: source experiments/setup.sh   (HS_BUILD may be set beforehand to build elsewhere)
set -euo pipefail

HS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HS_BUILD="${HS_BUILD:-$HS_ROOT/build}"
export HS_ROOT HS_BUILD

hs_packages=(build-essential cmake pkg-config libsimgrid-dev libxml2-dev libjson-c-dev libcmocka-dev gnuplot-nox time parallel python3)
# experiments/import/import.py (bring your own CNN): PyTorch, torchvision and ONNX for Debian's
# python3, installed without their recommends (about 650 MB instead of 960).
hs_python_packages=(python3-torch python3-torchvision python3-onnx)

hs_missing_packages() { # PACKAGE...
    local missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
            missing+=("$pkg")
    done
    echo "${missing[@]:-}"
}

hs_install() {
    local missing python_missing
    missing="$(hs_missing_packages "${hs_packages[@]}")"
    python_missing="$(hs_missing_packages "${hs_python_packages[@]}")"
    [ -z "$missing$python_missing" ] && return 0
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || {
            echo "setup: need root or sudo to install: $missing $python_missing" >&2
            return 1
        }
        sudo="sudo"
    fi
    echo "setup: installing $missing $python_missing" >&2
    $sudo apt-get update -qq
    # shellcheck disable=SC2086
    [ -z "$missing" ] || DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
    # shellcheck disable=SC2086
    [ -z "$python_missing" ] || DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
        --no-install-recommends $python_missing >/dev/null
}

# Progress goes to stderr; HS_CMAKE_FLAGS adds configuration flags (tests/run.sh --sanitize:
# -DHS_SANITIZE=ON).
hs_build() {
    echo "setup: building hybridsim in $HS_BUILD" >&2
    # shellcheck disable=SC2086
    cmake -S "$HS_ROOT" -B "$HS_BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${HS_CMAKE_FLAGS:-} >/dev/null
    cmake --build "$HS_BUILD" -j"$(nproc)" >&2
}

hs_install
hs_build
