// SimGrid allows one engine per process. run_isolated() forks, runs `work` in the child (which may
// create and run an engine), and returns what the child returned through a pipe. Used by the CLI
// (one baseline and one scaled run per `simulate`), sweeps and tests. The files the child read
// (inputs_read.h) are recorded in the parent too: they are inputs of the parent's results.
#pragma once

#include <functional>
#include <string>

namespace ddpsim {

struct IsolatedResult {
  bool ok = false;          // child exited 0 and returned its payload
  int exit_code = 0;        // child's exit code (or 128 + signal)
  std::string payload;      // what `work` returned (ok) or the child's error text (not ok)
  double wall_seconds = 0;  // child's lifetime
  double cpu_seconds = 0;   // child's user + system CPU time
  long max_rss_kib = 0;     // child's peak resident memory
};

// `work` returns a payload; if it throws, the exception text comes back with ok = false and
// exit_code 2 for InputError, 1 otherwise.
IsolatedResult run_isolated(const std::function<std::string()>& work);

}  // namespace ddpsim
