#include "sim/data/loader_rates.h"

#include <algorithm>
#include <limits>

namespace ddpsim {
namespace {

constexpr double kUnlimited = std::numeric_limits<double>::infinity();

double per_sample(double bandwidth, double bytes) {
  return bytes > 0 ? bandwidth / bytes : kUnlimited;
}

}  // namespace

const char* loader_stage_name(LoaderStage stage) {
  switch (stage) {
    case LoaderStage::kStorage:
      return "storage";
    case LoaderStage::kDecode:
      return "decode";
    case LoaderStage::kPcie:
      return "pcie";
  }
  return "?";
}

double LoaderRates::rate() const { return std::min({storage, decode, pcie}); }

LoaderStage LoaderRates::limit() const {
  if (storage <= decode && storage <= pcie) return LoaderStage::kStorage;
  return decode <= pcie ? LoaderStage::kDecode : LoaderStage::kPcie;
}

double effective_storage_bandwidth(const DataSpec& d) {
  if (d.storage_iops <= 0) return d.storage_bandwidth;
  return std::min(d.storage_bandwidth, d.storage_iops * d.sample_bytes);
}

double storage_bytes_per_sample(const DataSpec& d, bool cached) {
  return d.sample_bytes * (cached ? 1.0 - d.page_cache_fraction : 1.0);
}

double storage_share_per_gpu(const DataSpec& d, const ClusterSpec& c) {
  const double g = c.gpus_per_node;
  const double bandwidth = effective_storage_bandwidth(d);
  if (d.storage == StorageKind::kLocal) return bandwidth / g;
  double share = bandwidth / c.total_gpus();
  if (d.client_bandwidth > 0) share = std::min(share, d.client_bandwidth / g);
  if (d.client_shares_nic) {
    // The route storage -> node crosses the reading leaf's downlink and the node's NIC 0.
    const int nodes_in_leaf = std::min(c.nodes, c.fabric.nodes_per_leaf);
    const double leaf_down =
        c.fabric.nodes_per_leaf * c.nic.count * c.nic.bandwidth / c.fabric.oversubscription;
    share = std::min({share, c.nic.bandwidth / g, leaf_down / (nodes_in_leaf * g)});
  }
  return share;
}

double decode_cores_per_gpu(const DataSpec& d, const ClusterSpec& c) {
  return std::min<double>(d.workers_per_gpu,
                          static_cast<double>(c.cpu_cores_per_node) / c.gpus_per_node);
}

double copied_bytes_per_sample(const DataSpec& d) {
  return d.decode == DecodeKind::kGpu ? d.sample_bytes : d.decoded_bytes;
}

int loader_stages(const DataSpec& d) { return d.decode == DecodeKind::kGpu ? 2 : 3; }

double gpu_input_buffer_bytes(const DataSpec& d, int batch_per_gpu) {
  if (d.synthetic) return 0;
  const bool gpu = d.decode == DecodeKind::kGpu;
  const int batches = d.prefetch + loader_stages(d) + 1;
  return batch_per_gpu * (batches * copied_bytes_per_sample(d) + (gpu ? d.decoded_bytes : 0));
}

LoaderRates loader_rates(const DataSpec& d, const ClusterSpec& c, bool cached,
                         double h2d_bandwidth) {
  LoaderRates r;
  r.storage = per_sample(storage_share_per_gpu(d, c), storage_bytes_per_sample(d, cached));
  r.decode = d.decode == DecodeKind::kGpu
                 ? (d.gpu_decode_time > 0 ? 1.0 / d.gpu_decode_time : kUnlimited)
                 : decode_cores_per_gpu(d, c) * d.samples_per_core;
  const double copy =
      h2d_bandwidth > 0 ? std::min(c.pcie_bandwidth, h2d_bandwidth) : c.pcie_bandwidth;
  r.pcie = per_sample(copy, copied_bytes_per_sample(d));
  return r;
}

}  // namespace ddpsim
