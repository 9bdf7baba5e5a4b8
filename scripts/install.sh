#!/usr/bin/env bash
# Install dealer-assistant with everything it needs, on Debian/Ubuntu with Python 3.11+.
#
#   bash scripts/install.sh          the program (pip, into the current Python)
#   bash scripts/install.sh --test   also the test tools and the system packages the
#                                    tests use (AVR toolchain and simavr for the device
#                                    firmware, SVG card decks, wallpapers and fonts for
#                                    the renderer, Xvfb for the dashboard)
#
# System packages are installed with apt-get when running as root (or with sudo);
# otherwise the missing ones are listed and the tests that need them say so.
set -euo pipefail
cd "$(dirname "$0")/.."

with_tests=0
[ "${1:-}" = "--test" ] && with_tests=1

# Qt (PySide6) needs these shared libraries even offscreen.
apt_packages=(libgl1 libegl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3
              libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-xinerama0)
if [ "$with_tests" = 1 ]; then
    apt_packages+=(gcc-avr avr-libc simavr libsimavr-dev libelf-dev pkg-config make gcc
                   kdegames-card-data-kf5 gnome-cards-data gnome-backgrounds librsvg2-bin
                   fontconfig fonts-dejavu-core fonts-dejavu-extra fonts-urw-base35 fonts-liberation
                   fonts-freefont-ttf fonts-texgyre fonts-linuxlibertine fonts-open-sans
                   fonts-roboto-unhinted
                   xvfb xauth)
    # the extra deck designs are fetched with npm (nodejs packages often carry their own)
    command -v npm >/dev/null || apt_packages+=(npm)
fi

missing=()
for package in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo="sudo"
    if [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; then
        echo "install.sh: apt-get install ${missing[*]}"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
        echo "install.sh: WARNING: cannot install system packages (not root): ${missing[*]}" >&2
    fi
fi

# torch is pinned: this build is the one the project is tested with (a plain 'torch'
# can pull a different, much larger build).
extra=""
[ "$with_tests" = 1 ] && extra="[test]"
python3 -m pip install --quiet --disable-pip-version-check \
    "torch==2.14.1" "torchvision==0.29.1" -e ".${extra}"
