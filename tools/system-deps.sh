#!/usr/bin/env bash
# Installs the Debian packages a make target needs, when they are missing.
#   tools/system-deps.sh test    the browser tests (chromium) and the event archive (postgresql)
#   tools/system-deps.sh uf2     the image build: the ARM toolchain and cmake
# Needs root and apt-get; without them it names what is missing and exits 1.
set -euo pipefail
case "${1:-}" in
  test) pkgs=(chromium postgresql fonts-noto-cjk) ;;
  uf2) pkgs=(build-essential cmake gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib) ;;
  *) echo "usage: $0 test|uf2" >&2; exit 2 ;;
esac
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "missing Debian packages: ${missing[*]} (install them as root: apt-get install ${missing[*]})" >&2
  exit 1
fi
echo "installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
