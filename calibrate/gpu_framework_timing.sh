#!/usr/bin/env bash
# One GPU call: per-layer times of what PyTorch runs (the exporter's --time with the head start
# and the framework's choices) for ResNet-50 and GPT-2 small at bf16, each checked against the
# plain training step of the same run; then the same models with PyTorch's defaults, and, where
# a ddpsim-calibrate built elsewhere came along, the harness on the zoo models (the "before").
#   [ONLY="NAME ..."] calibrate/gpu_framework_timing.sh OUT [BIN_DIR LIB_DIR]
# Writes OUT/framework-timing.tar.gz (every log, profile, model file and check) after every step,
# and OUT/summary.txt. Each step has its own time limit and a failure does not stop the others.
set -u
out=${1:?OUT}; bin=${2:-}; libs=${3:-}
work=$(mktemp -d)
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1
py=calibrate/pytorch

archive="$out/framework-timing.tar.gz"
source calibrate/gpu_step.sh

{ date -u +%FT%TZ; nvidia-smi; nvidia-smi -q | grep -iE 'clocks|power draw|limit' | head -20;
  python3 -c 'import torch, torchvision; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), torch.cuda.get_device_name(), "torchvision", torchvision.__version__)'
} >"$work/device.txt" 2>&1
cat "$work/device.txt" | tail -1

# export ... --time: model file, profile and check of one model with one set of choices.
timed() {  # timed NAME LIMIT FACTORY ARGS...
  local name=$1 limit=$2 factory=$3; shift 3
  [[ -n "${ONLY:-}" && " $ONLY " != *" $name "* ]] && return  # ONLY="resnet50-framework ..."
  step "$name" "$limit" python3 $py/ddpsim_torch.py export "$factory" --precision bf16 \
    --device cuda --time --repeats 20 --warmup 5 --rotate-inputs 3 \
    --check-json "$work/$name.check.json" --profile "$work/$name.profile.yaml" \
    -o "$work/$name.model.yaml" "$@"
  tail -n 4 "$work/$name.log"
}
# What a tuned training script runs: channels_last + cudnn.benchmark for the CNN, SDPA for the
# transformer, fused optimizers for both.
timed resnet50-framework 120 torchvision.models:resnet50 --input 3x224x224 --batch 64 \
  --channels-last --cudnn-benchmark --fused-optimizer --name resnet50
timed gpt2-framework 120 $py/examples/transformers_local.py:gpt2_small --name gpt2_small \
  --input 1024:int64:50257 --batch 8 --arg attention=sdpa --fused-optimizer
# PyTorch's defaults (NCHW, no benchmark, foreach optimizer, eager attention): the models of the
# 2026-11-27 H200 run.
timed resnet50-defaults 90 torchvision.models:resnet50 --input 3x224x224 --batch 64 --name resnet50
timed gpt2-defaults 90 $py/examples/transformers_local.py:gpt2_small --name gpt2_small \
  --input 1024:int64:50257 --batch 8

if [ -n "$bin" ] && [ -x "$bin/ddpsim-calibrate" ]; then
  torch_libs=$(python3 -c 'import glob, os, site; print(":".join(sorted(set(d for s in site.getsitepackages() for d in glob.glob(os.path.join(s, "nvidia", "*", "lib")) + glob.glob(os.path.join(s, "nvidia", "cu13", "lib"))))))')
  export LD_LIBRARY_PATH="$libs:/usr/local/cuda/lib64:${torch_libs}:${LD_LIBRARY_PATH:-}"
  step harness-gpt2 90 "$bin/ddpsim-calibrate" --model gpt2 --seq 1024 --batch 8 \
    --precision bf16 --no-collectives --repeats 10 -o "$work/harness-gpt2.yaml"
  step harness-resnet50 100 "$bin/ddpsim-calibrate" --model resnet50 --batch 64 \
    --precision bf16 --no-collectives --repeats 10 -o "$work/harness-resnet50.yaml"
fi

{ cat "$work/steps.txt"; grep -h '^check:' "$work"/*.log; } | tee "$out/summary.txt"
