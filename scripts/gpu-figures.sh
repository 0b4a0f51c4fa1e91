#!/bin/bash
# Real-GPU figures for the README (issue 10), in one run that fits a short lease of a machine with
# an NVIDIA GPU, no network and no Node (about 6 minutes of benchmarks after a 1-minute start).
#
#   bash scripts/gpu-figures.sh pack           here: npm run build, then a bundle in .gpu/ (Node's
#                                              binary and Dawn's dawn.node xz-compressed, wgsl_reflect,
#                                              the Vulkan loader and glvnd Debian packages), ~32 MB, git-ignored
#   bash scripts/gpu-figures.sh run OUT        there (root, in the repository, with .gpu/ and dist/
#                                              carried): unpacks the bundle and writes OUT/figures.log
#   bash scripts/gpu-figures.sh run OUT quick  here, on SwiftShader at tiny sizes: a rehearsal
#
# The benchmarks are the repository's own (bench/*.mjs); every stage has its own time limit, so a
# slow one costs its figures, not the others'. The 2026-11-27 run on an H200 is README's "On a
# real GPU"; its logs are reports/gpu-h200-run*.log.
set -u
cd "$(dirname "$0")/.."

pack() {
  npm run --silent build
  local exclude
  exclude="$(git rev-parse --git-dir)/info/exclude"
  mkdir -p "$(dirname "$exclude")" && { grep -qx '/.gpu/' "$exclude" 2>/dev/null || echo '/.gpu/' >>"$exclude"; }
  rm -rf .gpu && mkdir -p .gpu/deb .gpu/pkg/webgpu/dist/linux-x64 /tmp/amd64/partial
  local apt='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  # shellcheck disable=SC2086
  apt-get $apt update >/dev/null && (cd .gpu/deb && apt-get $apt download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 2>&1 | tail -1)
  cp node_modules/webgpu/package.json node_modules/webgpu/index.js .gpu/pkg/webgpu/
  xz -T2 -6 -c node_modules/webgpu/dist/linux-x64/dawn.node >.gpu/pkg/dawn.node.xz
  cp -r node_modules/wgsl_reflect .gpu/pkg/
  xz -T2 -6 -c "$(command -v node)" >.gpu/node.xz
  du -sh .gpu dist
}

unxz_to() { python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" "$1" "$2"; }

run() {
  local out=$1 quick=${2:-}
  mkdir -p "$out"
  exec > >(tee -a "$out/figures.log") 2>&1
  local t0
  t0=$(date +%s)
  stamp() { echo "=== [$(($(date +%s) - t0)) s] $*"; }
  if [ -z "$quick" ]; then
    for f in .gpu/deb/*.deb; do dpkg -x "$f" /; done
    ldconfig
    local icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    [ -f $icd ] && export VK_DRIVER_FILES=$icd VK_ICD_FILENAMES=$icd
    unxz_to .gpu/node.xz /tmp/node && chmod +x /tmp/node && export PATH=/tmp:$PATH
    mkdir -p node_modules && cp -r .gpu/pkg/webgpu .gpu/pkg/wgsl_reflect node_modules/
    unxz_to .gpu/pkg/dawn.node.xz node_modules/webgpu/dist/linux-x64/dawn.node
    nvidia-smi -L
  fi
  local sizes=32,64,128,256,512,1024 big=1024 mid=256
  [ -n "$quick" ] && sizes=8,16 big=16 mid=8
  stamp "node $(node --version); adapter"
  timeout 30 node -e "import('./dist/weft-internal.js').then(async (m) => { const a = await m.acquireDevice(); console.log('Adapter:', a.adapterName); process.exit(0); })" || { stamp 'no adapter'; return 1; }
  stamp "steps per second and where a step's time goes, $mid² and $big²"
  timeout 200 node bench/step-latency.mjs --sizes $mid,$big --steps 5
  stamp "step() encoding every iteration to a cap of 100 (the demo's path) against advance(), $mid²"
  timeout 60 node bench/step-latency.mjs --sizes $mid --steps 5 --modes advance,step --cap 100
  stamp 'solver scaling'
  timeout 150 node bench/solver-scaling.mjs --backends webgpu --sizes $sizes --gpu-max 1024 --out "$out"
  stamp "the product's bandwidth against a copy, $mid²"
  timeout 60 node bench/implicit.mjs --sizes $mid --solvers pcg --backends webgpu --gpu-steps 2 --pairs 3
  stamp "Drake's spring-mass, 10 s"
  timeout 50 node bench/adaptive.mjs --t-end 10 --repeat 1
  stamp done
}

case "${1:-}" in
  pack) pack ;;
  run) run "${2:?usage: gpu-figures.sh run OUT [quick]}" "${3:-}" ;;
  *) echo 'usage: bash scripts/gpu-figures.sh pack | run OUT [quick]' >&2 && exit 2 ;;
esac
