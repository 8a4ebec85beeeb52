// SimGrid configuration every simulation shares (DESIGN.md, "SimGrid 3.32 facts").
#include <malloc.h>
#include <xbt/log.h>

#include <simgrid/s4u.hpp>

#include "sim/platform/cluster_platform.h"

// AddressSanitizer (GCC defines the first, clang answers the second).
#if defined(__SANITIZE_ADDRESS__)
#define DDPSIM_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DDPSIM_ADDRESS_SANITIZER 1
#endif
#endif

namespace ddpsim {

EngineCommandLine::EngineCommandLine(bool stoppable) {
  static char program[] = "ddpsim";
  argv[argc++] = program;
#ifdef DDPSIM_ADDRESS_SANITIZER
  static char quiet[] = "--log=xbt_cfg.thres:warning";
  static char thread_contexts[] = "--cfg=contexts/factory:thread";
  if (stoppable) {
    argv[argc++] = quiet;
    argv[argc++] = thread_contexts;
  }
#else
  (void)stoppable;
#endif
}

void configure_network_model(bool guard_pages) {
  // Before any set_config: each change is otherwise announced at xbt_cfg/INFO.
  xbt_log_control_set("xbt_cfg.thres:warning");
  xbt_log_control_set("root.thres:critical");

  using simgrid::s4u::Engine;
  // LV08 (the default) scales latency by 13.01 and bandwidth by 0.97 and adds reverse traffic;
  // CM02 without those reproduces the alpha-beta closed forms exactly.
  Engine::set_config("network/model:CM02");
  Engine::set_config("network/crosstraffic:0");
  Engine::set_config("network/TCP-gamma:1e30");
  // KiB per actor stack: 8192 GPUs run two to four actors each; the default (8 MiB) would
  // reserve hundreds of GiB of address space.
  Engine::set_config("contexts/stack-size:128");
  if (!guard_pages) {
    // A guard page splits each stack's mapping in two; without it, 16,384 GPUs' 32,769 actors fit
    // the default vm.max_map_count. Stacks (128 KiB) then come from malloc: a fixed mmap
    // threshold below their size gives each its own lazily filled mapping (the kernel merges
    // neighbours), where the heap would hand out pages that are already touched.
    Engine::set_config("contexts/guard-size:0");
    mallopt(M_MMAP_THRESHOLD, 64 * 1024);
  }
}

}  // namespace ddpsim
