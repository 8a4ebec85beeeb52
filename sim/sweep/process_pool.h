// Runs tasks in forked child processes, at most `jobs` at a time (SimGrid allows one engine per
// process, so parallel points need processes, not threads). A child runs its task and exits 0,
// or 2 for an InputError and 1 for any other exception, whose text reaches the parent through a
// pipe. Each child leads its own process group, so stopping the pool (SIGINT/SIGTERM to the
// parent) stops the simulations the child forked as well. Children die with the parent
// (PR_SET_PDEATHSIG): a killed sweep leaves nothing running that could write into its folder
// while a resumed one does (a grandchild still computing finishes unseen: its result pipe is
// gone).
#pragma once

#include <csignal>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace ddpsim {

struct TaskOutcome {
  size_t task = 0;
  int exit_code = 0;  // 128 + signal when killed
  std::string error;  // the child's exception text (empty when it exited 0)
  double wall_seconds = 0;
  bool interrupted = false;  // stopped because `stop` was raised; not a result
};

struct PoolOptions {
  int jobs = 1;
  std::vector<int> close_in_child;                   // e.g. a lock the children must not keep alive
  const volatile std::sig_atomic_t* stop = nullptr;  // when set: launch nothing more, SIGTERM
                                                     // the running children, report them
                                                     // interrupted, return
  double tick_seconds = 0.2;                         // how often `on_tick` runs while waiting
};

// Runs `work(task)` for each task in order. `on_done` runs in the parent as each child ends
// (in completion order); `on_tick` runs periodically while children are running.
void run_in_processes(const std::vector<size_t>& tasks, const PoolOptions& options,
                      const std::function<void(size_t)>& work,
                      const std::function<void(const TaskOutcome&)>& on_done,
                      const std::function<void()>& on_tick);

}  // namespace ddpsim
