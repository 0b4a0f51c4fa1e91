#!/usr/bin/env bash
# Installs the Debian packages Weft needs where a machine lacks them:
#   chromium   - headless browser for the GPU tests, and its SwiftShader Vulkan driver
#                (/usr/lib/chromium/vk_swiftshader_icd.json), WebGPU's adapter on a machine without a GPU;
#   libvulkan1 - the Vulkan loader that Dawn (the `webgpu` package) opens in Node.
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || [ -n "${WEFT_CHROMIUM:-}" ] || missing+=(chromium)
ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1' || missing+=(libvulkan1)
if [ ${#missing[@]} -eq 0 ]; then
  echo "system-deps: chromium and libvulkan1 present"
  exit 0
fi
echo "system-deps: installing ${missing[*]} (Debian packages)"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "system-deps: need root or sudo to run: apt-get install -y ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
echo "system-deps: installed ${missing[*]}"
