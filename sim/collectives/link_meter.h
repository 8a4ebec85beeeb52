// Per-link accounting of every flow over the measured window, exactly.
//
// Every flow the simulation starts goes through the Transport, which registers it here with its
// endpoints and size; its route is the topology's (expected_route, self-tested against SimGrid).
// A flow's bytes are counted on each link of its route as they move inside the window: when the
// window opens (the last GPU finished its warmup steps) and closes (the last GPU finished its
// last step), the bytes every registered flow has moved so far are read from SimGrid
// (Activity::get_remaining, exact at that instant; a put not matched yet has moved nothing), and
// a flow that ends is settled with its start and finish times (Activity::on_completion, which
// SimGrid fires when a side's wait returns, possibly later than the finish). Busy time is the
// measure of the union of the in-window lifetimes of the flows crossing the link (links have no
// latency, so a live flow always moves data). Bytes accounted without a flow
// (Transport::account: alpha-beta tables) are counted whole when accounted inside the window,
// and flagged: they took no link time.
#pragma once

#include <cstdint>
#include <limits>
#include <simgrid/s4u.hpp>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/platform/cluster_platform.h"
#include "sim/platform/link_names.h"

namespace ddpsim {

// One flow's life on a link, clipped to the window, with the bytes it moved inside it.
struct LinkInterval {
  double start = 0, end = 0, bytes = 0;
};

struct LinkTotals {
  double flow_bytes = 0;       // moved by simulated flows inside the window
  double accounted_bytes = 0;  // accounted without a flow inside the window
  // Flows that ended after the meter's detail time (the last step), one interval each: what the
  // timeline's counters and per-slice links are drawn from.
  std::vector<LinkInterval> recent;

  void add_busy(double start, double end);
  double busy() const;  // measure of the union of every in-window life

 private:
  // Lives as (start, end); merged into disjoint intervals whenever the list doubles, so memory
  // follows the number of separate busy periods, not the number of flows.
  std::vector<std::pair<double, double>> lives_;
  size_t merged_ = 0;
};

class LinkMeter {
 public:
  explicit LinkMeter(const ClusterPlatform& platform);
  ~LinkMeter();
  LinkMeter(const LinkMeter&) = delete;
  LinkMeter& operator=(const LinkMeter&) = delete;

  // A flow of `bytes` from `from` to `to`; `comm` is either side of it (a started comm whose
  // s4u object holds its kernel activity: not a detached put).
  void add_flow(const simgrid::s4u::CommPtr& comm, const simgrid::s4u::Host* from,
                const simgrid::s4u::Host* to, double bytes);
  // A disk read of `bytes` counted on `link` (a catalogued link standing for the disk) as a flow
  // on it would be; `io` must be started.
  void add_io(const simgrid::s4u::IoPtr& io, const simgrid::s4u::Link* link, double bytes);
  // `link`'s bandwidth changed after the catalogue was made (storage IOPS lowering it).
  void refresh_bandwidth(const simgrid::s4u::Link* link);
  // Bytes that cross the route without a simulated flow.
  void add_accounted(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, double bytes);

  // The window: opened and closed at the current simulated time (each at most once; a meter
  // never opened counts nothing). settle() accounts the flows still registered after the run.
  void open_window();
  void close_window();
  void settle();
  // Flows ending at or after the current time keep their own interval (LinkTotals::recent).
  void keep_details_from_now();
  // Moves the detail time to now, dropping the intervals of flows that ended before it (a run
  // that did not stop at its candidate step keeps its last step's details only).
  void restart_details_from_now();

  bool window_open() const { return opened_ && !closed_; }
  double window_start() const { return start_; }
  double window_end() const { return end_; }  // the clock at settle() when never closed

  const LinkCatalogue& catalogue() const { return catalogue_; }
  const std::vector<LinkTotals>& totals() const { return totals_; }

 private:
  struct Flow {
    simgrid::s4u::ActivityPtr comm;  // a comm, or a disk I/O
    const simgrid::s4u::Host* from = nullptr;
    const simgrid::s4u::Host* to = nullptr;
    const simgrid::s4u::Link* link = nullptr;  // an I/O's one link; flows follow from -> to
    double bytes = 0;
    double moved_at_open = -1;   // -1: the window was not open yet when last looked
    double moved_at_close = -1;  // -1: the window still open
    uint64_t order = 0;          // registration order: settle() sums in it, not in hash order
  };
  void completed(const simgrid::s4u::Activity& activity);
  void track(Flow flow);
  void finish(const Flow& flow, double start, double end);
  double moved(const Flow& flow) const;
  // The catalogue indices of the links of from -> to, computed once per pair: a flow's end is
  // the hot path of a large run (every ring edge of every call).
  const std::vector<size_t>& route_indices(const simgrid::s4u::Host* from,
                                           const simgrid::s4u::Host* to);

  const ClusterPlatform& platform_;
  LinkCatalogue catalogue_;
  std::vector<LinkTotals> totals_;
  std::unordered_map<const void*, Flow> flows_;  // by the comm's kernel activity (both sides)
  struct PairHash {
    size_t operator()(const std::pair<const void*, const void*>& k) const {
      return std::hash<const void*>()(k.first) * 31 + std::hash<const void*>()(k.second);
    }
  };
  std::unordered_map<std::pair<const void*, const void*>, std::vector<size_t>, PairHash> routes_;
  bool opened_ = false, closed_ = false;
  double start_ = 0, end_ = 0;
  double details_from_ = std::numeric_limits<double>::infinity();
  uint64_t registered_ = 0;
};

}  // namespace ddpsim
