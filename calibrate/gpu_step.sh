# Sourced by the GPU-call scripts (gpu_session.sh, gpu_framework_timing.sh): one step of a call.
#   step NAME SECONDS COMMAND...
# runs COMMAND under its own time limit with its output in $work/NAME.log, appends its exit
# status and duration to $work/steps.txt, and packs $work into $archive after every step: a
# lent GPU machine is minutes, so a later step that outlasts the call must not cost the earlier
# ones' files, and one broken step must not stop the others.
step() {
  local name=$1 limit=$2; shift 2
  local t0=$(date +%s)
  timeout "$limit" "$@" >"$work/$name.log" 2>&1
  local rc=$?
  printf '%-28s rc=%-3d %4ds\n' "$name" "$rc" "$(( $(date +%s) - t0 ))" | tee -a "$work/steps.txt"
  tar -C "$work" -czf "$archive" .
}
