#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (ASan + UBSan + coverage, build-fuzz/)
# and runs each for a bounded time on a private copy of its seed corpus.
#
#   tests/fuzz/run_fuzz.sh                 every target, 60 s each (what CI can afford)
#   tests/fuzz/run_fuzz.sh 3600            every target, one hour each
#   tests/fuzz/run_fuzz.sh 0 fuzz_scenario  one target until it finds something (Ctrl-C stops)
#   FUZZ_RUNS=1000000 tests/fuzz/run_fuzz.sh 0   exactly 10^6 executions per target
#   FUZZ_PARALLEL=2 tests/fuzz/run_fuzz.sh      two targets at a time (one per core)
#   FUZZ_SEED=1 FUZZ_RUNS=20000 tests/fuzz/run_fuzz.sh 300   a bounded run from seed 1 (CI)
#
# Exit status 1 when a target found a crash; its input is saved as build-fuzz/findings/<target>/
# crash-* (reproduce: build-fuzz/tests/fuzz/<target> FILE). Every finding becomes a regression
# test in tests/ (docs/reliability.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
shift || true
targets=("$@")
build=${FUZZ_BUILD_DIR:-build-fuzz}

if ! command -v clang++ >/dev/null; then
  echo "run_fuzz.sh: clang++ not found (Debian: apt-get install clang libclang-rt-14-dev)" >&2
  exit 2
fi
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DDDPSIM_FUZZ=ON -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target ddpsim_fuzzers
if [ ${#targets[@]} -eq 0 ]; then
  for src in tests/fuzz/fuzz_*.cpp; do targets+=("$(basename "$src" .cpp)"); done
fi

# Seeds: the hand-made ones in tests/fuzz/corpus/<target>/ plus the files ddpsim ships or tests
# with, taken from where they live so the seeds follow them.
seeds_of() {
  case "$1" in
    fuzz_scenario) ls scenarios/*.yaml scenarios/validation/*/*.yaml \
                      tests/data/bad_scenarios/*.yaml tests/data/bad_inputs/*.yaml ;;
    fuzz_sweep) ls scenarios/*.yaml tests/data/bad_inputs/sweep_*.yaml ;;
    fuzz_profile) ls tests/data/bad_inputs/files/*.yaml ;;
    fuzz_nccl_tests) ls tests/data/nccl-tests/*.log tests/data/bad_inputs/*.log ;;
  esac 2>/dev/null || true
}

# Runs one target; its libFuzzer output goes to $build/<target>.log.
run_target() {
  local target=$1 corpus="$build/corpus/$1" findings="$build/findings/$1"
  local args=(-max_len=8192 -timeout=10 -rss_limit_mb=4096 -print_final_stats=1
              -artifact_prefix="$findings/")
  [ "$seconds" != 0 ] && args+=(-max_total_time="$seconds")
  [ -n "${FUZZ_RUNS:-}" ] && args+=(-runs="$FUZZ_RUNS")
  [ -n "${FUZZ_SEED:-}" ] && args+=(-seed="$FUZZ_SEED")
  "$build/tests/fuzz/$target" "${args[@]}" "$corpus" 2>"$build/$target.log"
}

report() {
  local target=$1 ok=$2
  echo "== $target (${seconds}s${FUZZ_RUNS:+, $FUZZ_RUNS runs})"
  if [ "$ok" != 0 ]; then
    status=1
    echo "$target: FOUND A CRASH; see $build/$target.log and $build/findings/$target/" >&2
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$build/$target.log" || true
}

for target in "${targets[@]}"; do
  corpus="$build/corpus/$target"
  mkdir -p "$corpus" "$build/findings/$target"
  # Seeds are copied, never written to: libFuzzer adds what it learns to the first folder.
  cp -n tests/fuzz/corpus/"$target"/* "$corpus"/ 2>/dev/null || true
  for seed in $(seeds_of "$target"); do
    cp -n "$seed" "$corpus/seed-$(basename "$(dirname "$seed")")-$(basename "$seed")"
  done
done

# FUZZ_PARALLEL targets at a time (default 1; CI uses one per core).
status=0
parallel=${FUZZ_PARALLEL:-1}
for ((first = 0; first < ${#targets[@]}; first += parallel)); do
  batch=("${targets[@]:first:parallel}")
  pids=()
  for target in "${batch[@]}"; do
    run_target "$target" &
    pids+=($!)
  done
  for i in "${!batch[@]}"; do
    ok=0
    wait "${pids[$i]}" || ok=$?
    report "${batch[$i]}" "$ok"
  done
done
exit $status
