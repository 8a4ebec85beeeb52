#!/usr/bin/env bash
# The PyTorch backend of calibrate/ on a GPU machine: the same commands as on a CPU
# (ddpsim_torch.py allreduce / ddp-step), with NCCL and CUDA. One GPU: a one-rank NCCL
# communicator (no inter-GPU traffic) and two ranks sharing the GPU over Gloo with CUDA tensors.
#   calibrate/gpu_ground_truth.sh OUT        (PYDIR: where ddpsim_torch.py is; default calibrate/pytorch)
set -u
out=${1:?OUT}
py=${PYDIR:-calibrate/pytorch}/ddpsim_torch.py
export MASTER_ADDR=127.0.0.1
run_ranks() {  # run_ranks N PORT ARGS...: N local ranks of one job
  local n=$1 port=$2; shift 2
  local pids=()
  for ((r = 0; r < n; r++)); do
    RANK=$r WORLD_SIZE=$n MASTER_PORT=$port DDPSIM_LOCAL_RANKS=$n python3 "$py" "$@" &
    pids+=($!)
  done
  local rc=0
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  return $rc
}
echo "== NCCL all-reduce, 1 rank (CUDA)"
run_ranks 1 29511 allreduce --backend nccl --device cuda -b 8 -e 256M -f 4 -o "$out/nccl-1rank.log"
echo "== Gloo all-reduce of CUDA tensors, 2 ranks on one GPU"
run_ranks 2 29512 allreduce --backend gloo --device cuda -b 8 -e 64M -f 4 -o "$out/gloo-cuda-2ranks.log"
echo "== DDP step, NCCL, 1 rank: ResNet-50 batch 64"
run_ranks 1 29513 ddp-step torchvision.models:resnet50 --input 3x224x224 --batch 64 \
  --backend nccl --device cuda -o "$out/ddp-nccl-resnet50.json"
echo "== DDP step, Gloo with CUDA tensors, 2 ranks on one GPU: ResNet-18 batch 32"
run_ranks 2 29514 ddp-step torchvision.models:resnet18 --input 3x224x224 --batch 32 \
  --backend gloo --device cuda -o "$out/ddp-gloo-cuda-resnet18.json"
