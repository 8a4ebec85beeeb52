#include "sim/data/loader_advice.h"

#include <fmt/format.h>

#include <cmath>
#include <string_view>

#include "sim/data/loader_rates.h"
#include "sim/text/units.h"

namespace ddpsim {
namespace {

// Smallest whole count n with n x rate >= need (a relative 1e-9 forgiven for rounding).
int whole_needed(double need, double rate) {
  if (!(rate > 0)) return 0;
  return static_cast<int>(std::ceil(need / rate * (1 - 1e-9)));
}

}  // namespace

CoresAnswer cores_to_feed(const Scenario& s, double train_rate, const DecodeRange& row,
                          double h2d_bandwidth) {
  CoresAnswer a;
  a.train_rate = train_rate;
  a.per_core = s.data.samples_per_core;
  a.rate_low = row.low * a.per_core;
  a.rate_high = row.high * a.per_core;
  const int gpus = s.cluster.gpus_per_node;
  a.workers_per_gpu = whole_needed(train_rate, a.per_core);
  a.cores_per_node = whole_needed(gpus * train_rate, a.per_core);
  a.cores_fast = whole_needed(gpus * train_rate, a.rate_high);
  a.cores_slow = whole_needed(gpus * train_rate, a.rate_low);
  const LoaderRates rates = loader_rates(s.data, s.cluster, true, h2d_bandwidth);
  const std::string unit = " samples/s per GPU";
  if (rates.storage < train_rate)
    a.other_limit = fmt::format("storage {}{}", units::format_rate(rates.storage), unit);
  else if (rates.pcie < train_rate)
    a.other_limit = fmt::format("PCIe {}{}", units::format_rate(rates.pcie), unit);
  return a;
}

std::string loader_limit_warning(const Scenario& s, double train_rate, double h2d_bandwidth) {
  const DataSpec& d = s.data;
  if (d.synthetic || d.decode != DecodeKind::kCpu || !(train_rate > 0)) return "";
  const LoaderRates rates = loader_rates(d, s.cluster, true, h2d_bandwidth);
  if (!(rates.rate() < train_rate * (1 - 1e-9))) return "";
  const ClusterSpec& c = s.cluster;
  const std::string trains = units::format_rate(train_rate);
  if (rates.limit() == LoaderStage::kDecode) {
    const double share = static_cast<double>(c.cpu_cores_per_node) / c.gpus_per_node;
    if (d.workers_per_gpu >= share) return "";  // more cores would help: no cap binds
    return fmt::format(
        "data.workers_per_gpu {} caps decoding at {} samples/s per GPU against {} trained: "
        "cores beyond {} x {} = {} per node stay idle; feeding the GPUs takes {} workers per GPU "
        "(`ddpsim dataload --find cores`)",
        d.workers_per_gpu, units::format_rate(rates.decode), trains, d.workers_per_gpu,
        c.gpus_per_node, d.workers_per_gpu * c.gpus_per_node,
        whole_needed(train_rate, d.samples_per_core));
  }
  // No rate of its own in the text: the same job at several sizes gives one warning, and the
  // `data vs train` line has the figures.
  return fmt::format(
      "the {} limits loading below the {} samples/s one GPU trains: more CPU cores or loader "
      "workers do not feed the GPUs",
      rates.limit() == LoaderStage::kStorage ? "store" : "PCIe copy", trains);
}

}  // namespace ddpsim
