#include "sim/cli/summary_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "sim/cost/iteration_plan.h"
#include "sim/results/llm_units.h"
#include "sim/results/scaling_note.h"
#include "sim/text/units.h"

namespace ddpsim {
namespace {

std::string ms(double seconds) { return fmt::format("{:10.3f} ms", seconds * 1e3); }

std::string pct(double part, double whole) {
  return whole > 0 ? fmt::format("{:6.1f} %", 100.0 * part / whole) : std::string("     - ");
}

std::string rate(double v) { return units::format_rate(v); }

const LedgerEntry* ledger_entry(const std::vector<LedgerEntry>& ledger, std::string_view key) {
  for (const LedgerEntry& e : ledger)
    if (e.row->key == key) return &e;
  return nullptr;
}

// Where the two roofline efficiencies come from, as the assumption ledger has it (the one source
// of truth, with the `assumptions` line and result.assumptions: a value under `assumed:` is a
// default). "" where the ledger does not list them (mode measured: the measured step fixes the
// time, the efficiencies only split it among the layers).
std::string efficiency_source(const std::vector<LedgerEntry>& ledger) {
  const LedgerEntry* flops = ledger_entry(ledger, "compute.efficiency");
  const LedgerEntry* memory = ledger_entry(ledger, "compute.memory_efficiency");
  if (!flops || !memory) return "";
  // One phrase for both when they agree.
  auto said = [](InputSource source, bool both) {
    switch (source) {
      case InputSource::kMeasured:
        return "measured";
      case InputSource::kScenario:
        return "stated in the scenario";
      case InputSource::kDefault:
        break;
    }
    return both ? "defaults, not measured" : "a default";
  };
  if (flops->source == memory->source) return fmt::format(" ({})", said(flops->source, true));
  return fmt::format(" (compute.efficiency {}, compute.memory_efficiency {})",
                     said(flops->source, false), said(memory->source, false));
}

// Which compute figures the prediction rests on and where they came from.
std::string compute_line(const ComputeSpec& c, const std::vector<LedgerEntry>& ledger) {
  const std::string roofline =
      fmt::format("roofline at {:.0f} % of peak FLOP/s, {:.0f} % of HBM bandwidth{}",
                  100 * c.efficiency, 100 * c.memory_efficiency, efficiency_source(ledger));
  switch (c.mode) {
    case ComputeMode::kRoofline:
      return roofline;
    case ComputeMode::kMeasured:
      return fmt::format("{} scaled to the measured 1-GPU step of {} (compute.step_time)", roofline,
                         units::format_duration(c.step_time));
    case ComputeMode::kProfile:
      return fmt::format(
          "profile {}: measured layer times; other layers at its per-kind efficiencies{}",
          c.profile, c.profile_mismatch.empty() ? "" : " (see the warning)");
  }
  return roofline;
}

}  // namespace

std::string format_summary(const Scenario& s, const Model& model, const SimulationResult& r,
                           const std::vector<LedgerEntry>& ledger, const ResultBands* bands) {
  const ClusterSpec& c = s.cluster;
  std::string out;
  out += fmt::format("scenario    {}{}\n", s.name, s.source.empty() ? "" : " (" + s.source + ")");
  // Only what departs from the NVLink / RDMA defaults is spelled out.
  const bool staged =
      c.intra_node.kind == IntraNodeKind::kPcie && c.gpus_per_node > 1 && !c.intra_node.p2p;
  std::string transport;
  if (c.nic.transport == NicTransport::kTcp)
    transport = fmt::format(" (TCP, {:.0f} % of it)", 100 * c.nic.efficiency);
  else if (!c.nic.gpudirect)
    transport = " (no GPUDirect)";
  out += fmt::format(
      "cluster     {} node{} x {} {} = {} GPUs; {} {}/GPU{}; {} x {} NIC{}{}; "
      "leaf-spine {}:1, {} nodes/leaf\n",
      c.nodes, c.nodes == 1 ? "" : "s", c.gpus_per_node, c.gpu.name, c.total_gpus(),
      intra_node_name(c.intra_node.kind), units::format_bandwidth(c.intra_node.bandwidth),
      staged ? " without P2P" : "", c.nic.count, units::format_bandwidth(c.nic.bandwidth),
      c.nic.count == 1 ? "" : "s", transport, c.fabric.oversubscription, c.fabric.nodes_per_leaf);
  out += fmt::format(
      "model       {}: {:.2f} M params, {:.2f} GFLOP/sample forward; batch {}/GPU "
      "x {} accumulation (global {}), {}, {}\n",
      model.name, model.params() / 1e6, model.fwd_flops() / 1e9, s.training.batch_per_gpu,
      s.training.gradient_accumulation, static_cast<long long>(r.global_batch),
      precision_name(s.training.precision), optimizer_name(s.training.optimizer));
  std::string comm_units;
  const Sharding sharding = s.sync.sharding.strategy;
  if (sharding == Sharding::kZero3 || sharding == Sharding::kHybrid)
    comm_units = fmt::format("{} units (the root and {} wrapped)", r.buckets.size(),
                             r.buckets.empty() ? 0 : r.buckets.size() - 1);
  else if (s.sync.fusion.enabled && s.sync.strategy != SyncStrategy::kParameterServer)
    comm_units = fmt::format("{} fused buffers in the last step", r.buckets.size());
  else if (s.sync.schedule == CommSchedule::kPriority &&
           s.sync.strategy != SyncStrategy::kParameterServer)
    comm_units = fmt::format("{} partitions", r.buckets.size());
  else if (communicates_per_tensor(s))
    comm_units = fmt::format("{} tensors, one by one", r.buckets.size());
  else
    comm_units = fmt::format("{} buckets (cap {}, first {})", r.buckets.size(),
                             units::format_bytes(s.sync.bucket_cap),
                             units::format_bytes(s.sync.first_bucket));
  out += fmt::format("sync        {}; {}, overlap {}\n", r.notes, comm_units,
                     s.sync.overlap ? "on" : "off");
  out += fmt::format("compute     {}\n", compute_line(s.compute, ledger));
  out += "\n";
  std::string one_gpu = "   (scaling efficiency not computed: --no-baseline)";
  if (r.single_gpu_samples_per_second > 0)
    one_gpu = fmt::format("   (1 GPU: {} {}/s; scaling efficiency {:.1f} %)",
                          rate(r.single_gpu_samples_per_second), model.sample_unit,
                          100.0 * r.scaling_efficiency);
  if (bands) {
    const Band& rate_band = bands->samples_per_second;
    out += fmt::format(
        "throughput      {:>12} {}/s (p10 {} - p90 {})   median of {} draws x the "
        "model's measured error\n",
        rate(rate_band.p50), model.sample_unit, rate(rate_band.p10), rate(rate_band.p90),
        bands->samples);
    out += fmt::format(
        "nominal run     {:>12} {}/s{}: every default at its documented value; "
        "the breakdown, links and trace below describe this run\n",
        rate(r.samples_per_second), model.sample_unit, one_gpu);
  } else {
    out += fmt::format("throughput      {:>12} {}/s{}\n", rate(r.samples_per_second),
                       model.sample_unit, one_gpu);
  }
  out += llm_summary_lines(s, r);
  out += starved_baseline_line(r);
  const Breakdown& b = r.breakdown;
  const double t = r.iteration_time;
  if (bands)
    out += fmt::format("iteration time  {} (p10 {:.3f} - p90 {:.3f} ms); nominal run {:.3f} ms:\n",
                       ms(bands->iteration_time.p50), bands->iteration_time.p10 * 1e3,
                       bands->iteration_time.p90 * 1e3, t * 1e3);
  else
    out += fmt::format("iteration time  {}\n", ms(t));
  out += fmt::format("  data wait     {} {}\n", ms(b.data_wait), pct(b.data_wait, t));
  out += fmt::format("  forward       {} {}\n", ms(b.forward), pct(b.forward, t));
  out += fmt::format("  backward      {} {}\n", ms(b.backward), pct(b.backward, t));
  out += fmt::format("  exposed comm  {} {}", ms(b.exposed_comm), pct(b.exposed_comm, t));
  if (bands)
    out += fmt::format(" (p10 {:.1f} - p90 {:.1f} %)", 100 * bands->exposed_comm_share.p10,
                       100 * bands->exposed_comm_share.p90);
  out += "\n";
  out += fmt::format("  straggler     {} {}\n", ms(b.straggler_wait), pct(b.straggler_wait, t));
  out += fmt::format("  optimizer     {} {}\n", ms(b.optimizer), pct(b.optimizer, t));
  out += fmt::format("communication   {} busy per GPU: {} of the step, {} exposed\n",
                     ms(r.comm_time), pct(r.comm_time, t), pct(b.exposed_comm, t));
  if (r.data_rate_per_gpu > 0)
    out += fmt::format(
        "data vs train   loader {} {}/s per GPU, training {} {}/s per GPU "
        "(ratio {:.2f})\n",
        rate(r.data_rate_per_gpu), model.sample_unit, rate(r.train_rate_per_gpu), model.sample_unit,
        r.data_rate_per_gpu / r.train_rate_per_gpu);
  out += fmt::format(
      "memory          {} of {} per GPU{}\n", units::format_bytes(r.memory.total),
      units::format_bytes(r.memory.capacity),
      r.memory.fits
          ? ""
          : fmt::format(" -- DOES NOT FIT (largest batch that fits: {}{})",
                        r.memory.max_batch_that_fits,
                        r.memory.fits_with.empty() ? "" : "; fits with " + r.memory.fits_with));
  out += fmt::format("bottleneck      {}{}\n", r.bottleneck,
                     r.bottleneck_link.empty() ? "" : " (" + r.bottleneck_link + ")");
  // The most utilised links: share of their capacity used over the step, and how long per step
  // at least one flow crossed them.
  std::string busiest;
  for (size_t i = 0; i < r.links.busiest.size() && i < 3; ++i) {
    const LinkReport& l = r.links.busiest[i];
    busiest += fmt::format("{}{} {:.1f} % ({} busy)", busiest.empty() ? "" : ", ", l.name,
                           100 * l.utilisation, fmt::format("{:.3f} ms", l.busy * 1e3));
  }
  if (!busiest.empty())
    out += fmt::format("busiest links   {}  (capacity used over the step)\n", busiest);
  else if (std::any_of(r.links.classes.begin(), r.links.classes.end(),
                       [](const LinkClassReport& c) { return c.bytes > 0; }))
    // Links carried bytes but none took link time: collectives charged from an alpha-beta
    // table. A utilisation or busy time for them would be invented.
    out +=
        "busiest links   none timed: collectives charged from the alpha-beta table take no "
        "link time\n";
  std::string links;
  for (size_t i = 0; i < r.bytes_per_link_class.size(); ++i) {
    if (r.bytes_per_link_class[i] <= 0) continue;
    links += fmt::format("{}{} {}", links.empty() ? "" : ", ", kLinkClassNames[i],
                         units::format_bytes(r.bytes_per_link_class[i]));
  }
  out += fmt::format("bytes per step  {}\n",
                     links.empty() ? std::string("none") : links + "  (bytes x links crossed)");
  for (const std::string& w : r.warnings) out += "warning         " + w + "\n";
  return out;
}

}  // namespace ddpsim
