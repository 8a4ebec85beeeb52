#!/usr/bin/env bash
# One calibration session on a GPU machine that has CUDA, NCCL and PyTorch but not the Debian
# packages ddpsim builds against: runs a ddpsim-calibrate built elsewhere (with the shared
# libraries it was linked with beside it), the PyTorch exporter's --time and a plain PyTorch step
# on the same models (and a torch.profiler trace of them), the GPU tests where BIN_DIR has them,
# and packs everything into OUT/gpu-session.tar.gz.
#   calibrate/gpu_session.sh OUT BIN_DIR LIB_DIR [GROUP ...]
# Groups: tests (the GPU tests in BIN_DIR), harness (ResNet-50 and GPT-2 profiles), torch (plain
# PyTorch steps with a trace), export (the exporter's --time), fixture (a small real Kineto trace
# for the importer's tests), ground-truth (the PyTorch backend with NCCL and CUDA). Default:
# tests harness torch.
# Each step has its own time limit and goes on after a failure: one broken step must not cost the
# others (a lent GPU machine is minutes, not hours). The log of every step is in the archive.
set -u
out=${1:?OUT}; bin=${2:?BIN_DIR}; libs=${3:?LIB_DIR}
shift 3
groups=" ${*:-tests harness torch} "
want() { [[ $groups == *" $1 "* ]]; }
work=$(mktemp -d)
cd "$(dirname "$0")/.."

# CUDA libraries the harness needs and the device image has only inside PyTorch's wheels.
torch_libs=$(python3 - <<'EOF'
import glob, os, site
dirs = []
for s in site.getsitepackages():
    dirs += glob.glob(os.path.join(s, "nvidia", "*", "lib")) + glob.glob(os.path.join(s, "nvidia", "cu13", "lib"))
print(":".join(sorted(set(dirs))))
EOF
)
export LD_LIBRARY_PATH="$libs:/usr/local/cuda/lib64:${torch_libs}:${LD_LIBRARY_PATH:-}"

archive="$out/gpu-session.tar.gz"
source calibrate/gpu_step.sh

{ date -u +%FT%TZ; nvidia-smi; nvidia-smi -q | grep -iE 'clocks|sm  |memory  |power draw|limit' ;
  python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda, torch.cuda.get_device_name())';
  ldd "$bin/ddpsim-calibrate"; } >"$work/device.txt" 2>&1

cal="$bin/ddpsim-calibrate"
# The GPU tests, where their binaries came along (the harness test runs the harness from the
# path it was built at).
if want tests && [ -x "$bin/kernels_gpu_test" ]; then
  step kernels-gpu-test 120 "$bin/kernels_gpu_test"
fi
if want tests && [ -x "$bin/calibrate_harness_test" ]; then
  built_at=$(strings "$bin/calibrate_harness_test" | grep -m1 '/sim/ddpsim-calibrate$')
  [ -n "$built_at" ] && mkdir -p "$(dirname "$built_at")" && cp "$cal" "$built_at"
  step calibrate-harness-test 180 "$bin/calibrate_harness_test"
fi

want harness && step harness-resnet50 120 "$cal" --model resnet50 --batch 64 --precision bf16 --max-bytes 1GiB \
  -o "$work/profile-resnet50.yaml"
want harness && step harness-gpt2 90 "$cal" --model gpt2 --seq 1024 --batch 8 --precision bf16 --no-collectives \
  -o "$work/profile-gpt2.yaml"

py=calibrate/pytorch
want torch && step torch-resnet50-plain 90 python3 $py/plain_step.py torchvision.models:resnet50 \
  --input 3x224x224 --batch 64 --precision bf16 --device cuda --json "$work/torch-resnet50-plain.json" \
  --trace "$work/torch-resnet50-trace.json"
want torch && step torch-gpt2-plain 90 python3 $py/plain_step.py $py/examples/transformers_local.py:gpt2_small \
  --input 1024:int64:50257 --batch 8 --precision bf16 --device cuda --json "$work/torch-gpt2-plain.json" \
  --trace "$work/torch-gpt2-trace.json"
if want export; then
  step torch-resnet50-export 90 python3 $py/ddpsim_torch.py export torchvision.models:resnet50 \
    --input 3x224x224 --batch 64 --precision bf16 --device cuda --time -o "$work/torch-resnet50.yaml"
  step torch-gpt2-export 90 python3 $py/ddpsim_torch.py export \
    $py/examples/transformers_local.py:gpt2_small --name gpt2_small --input 1024:int64:50257 \
    --batch 8 --precision bf16 --device cuda --time -o "$work/torch-gpt2.yaml"
fi

# A real PyTorch 2.x Kineto trace small enough to keep as a test fixture.
want fixture && step fixture-resnet18 90 python3 $py/plain_step.py torchvision.models:resnet18 \
  --input 3x32x32 --batch 2 --precision bf16 --device cuda --steps 3 --warmup 3 \
  --trace "$work/kineto_cuda_resnet18.json" --trace-steps 3
want fixture && step fixture-resnet18-export 90 python3 $py/ddpsim_torch.py export \
  torchvision.models:resnet18 --input 3x32x32 --batch 2 -o "$work/kineto_cuda_resnet18.model.yaml"
if want ground-truth && [ -x calibrate/gpu_ground_truth.sh ]; then
  step ground-truth 240 bash calibrate/gpu_ground_truth.sh "$work"
fi

cat "$work/steps.txt"
grep -h 'step .* ms median' "$work"/torch-*-plain.log
grep -h '^profile:' "$work"/torch-*-export.log 2>/dev/null
grep -h 'PASSED\|FAILED\|SKIPPED' "$work"/*-test.log 2>/dev/null
grep -hc 'skipped:' "$work"/harness-*.log
grep -h 'GEMM\|copy' "$work"/harness-resnet50.log
