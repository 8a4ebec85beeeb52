#include "sim/engine/data_loader.h"

#include <cmath>
#include <cstdint>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "sim/cost/stragglers.h"
#include "sim/data/loader_rates.h"

namespace ddpsim {
namespace {

namespace sg4 = simgrid::s4u;

double now() { return sg4::Engine::get_clock(); }

uint64_t whole_bytes(double bytes) { return static_cast<uint64_t>(std::llround(bytes)); }

class LoaderFeed : public DataFeed {
 public:
  explicit LoaderFeed(RunContext* ctx);

  void wait_batch(int rank, int step, int micro) override;
  double rate_per_gpu() const override { return rates_.rate(); }
  void append_trace(std::vector<TraceEvent>* out) const override {
    out->insert(out->end(), trace_.begin(), trace_.end());
  }

 private:
  // The hand-offs of one GPU's pipeline; each counts batches.
  struct Lane {
    sg4::SemaphorePtr slots;    // batches the reader may still start
    sg4::SemaphorePtr read;     // read, waiting for decode
    sg4::SemaphorePtr decoded;  // decoded, waiting for the copy
    sg4::SemaphorePtr ready;    // on the GPU, waiting for the training loop
  };

  void read_loop(int rank);
  void decode_loop(int rank);
  void copy_loop(int rank);
  void read_from_storage(int rank, int batch);
  bool cached(int batch) const;
  // Byte counters cover the batches the run trains on, not the ones prefetched past its end.
  bool counted(int batch) const { return batch < run_batches_; }
  void record(int rank, int batch, const char* name, double start);

  RunContext* ctx_;
  const DataSpec& data_;
  LoaderRates rates_;
  int batch_size_;
  int run_batches_;  // per GPU: iterations x micro-batches
  bool gpu_decode_;
  std::vector<Lane> lanes_;
  std::vector<sg4::Disk*> node_disks_;    // local storage, per node
  sg4::Disk* store_disk_ = nullptr;       // shared store on its own storage network
  std::vector<sg4::Disk*> client_disks_;  // that network's per-node client links
  std::vector<TraceEvent> trace_;
};

LoaderFeed::LoaderFeed(RunContext* ctx)
    : ctx_(ctx),
      data_(ctx->scenario->data),
      rates_(loader_rates(ctx->scenario->data, ctx->scenario->cluster, true,
                          ctx->plan->compute.h2d_bandwidth)),
      batch_size_(ctx->scenario->training.batch_per_gpu),
      run_batches_(ctx->steps() * ctx->scenario->training.gradient_accumulation),
      gpu_decode_(ctx->scenario->data.decode == DecodeKind::kGpu) {
  ClusterPlatform& pf = *ctx->platform;
  const double bandwidth = effective_storage_bandwidth(data_);
  if (data_.storage == StorageKind::kLocal) {
    for (size_t n = 0; n < pf.node_cpus.size(); ++n) {
      node_disks_.push_back(
          pf.node_cpus[n]->create_disk("n" + std::to_string(n) + ".storage", bandwidth, bandwidth));
      node_disks_.back()->seal();
    }
  } else if (data_.client_shares_nic) {
    // The platform sized the storage links with the raw bandwidth; IOPS may lower it.
    pf.storage_up->set_bandwidth(bandwidth);
    pf.storage_down->set_bandwidth(bandwidth);
    if (ctx->meter) ctx->meter->refresh_bandwidth(pf.storage_up);
    if (ctx->meter) ctx->meter->refresh_bandwidth(pf.storage_down);
  } else {
    // The store's link stands for its disk in link reports: the same (IOPS-lowered) bandwidth.
    pf.storage_up->set_bandwidth(bandwidth);
    if (ctx->meter) ctx->meter->refresh_bandwidth(pf.storage_up);
    store_disk_ = pf.storage->create_disk("storage.aggregate", bandwidth, bandwidth);
    store_disk_->seal();
    if (data_.client_bandwidth > 0) {
      for (size_t n = 0; n < pf.node_cpus.size(); ++n) {
        client_disks_.push_back(
            pf.node_cpus[n]->create_disk("n" + std::to_string(n) + ".storage_client",
                                         data_.client_bandwidth, data_.client_bandwidth));
        client_disks_.back()->seal();
      }
    }
  }

  const int stages = loader_stages(data_);
  const int gpus = ctx->scenario->cluster.total_gpus();
  lanes_.resize(gpus);
  for (int rank = 0; rank < gpus; ++rank) {
    Lane& lane = lanes_[rank];
    lane.slots = sg4::Semaphore::create(data_.prefetch + stages);
    lane.read = sg4::Semaphore::create(0);
    lane.decoded = gpu_decode_ ? lane.read : sg4::Semaphore::create(0);
    lane.ready = sg4::Semaphore::create(0);
    sg4::Host* cpu = pf.node_cpus[pf.node_of_rank(rank)];
    const std::string id = std::to_string(rank);
    // Daemons: like a real loader they keep prefetching past the last simulated step (so the
    // last step sees the same contention as the others) and end with the training loop.
    sg4::Actor::create("reader" + id, cpu, [this, rank] { read_loop(rank); })->daemonize();
    if (!gpu_decode_)
      sg4::Actor::create("decoder" + id, cpu, [this, rank] { decode_loop(rank); })->daemonize();
    sg4::Actor::create("copier" + id, cpu, [this, rank] { copy_loop(rank); })->daemonize();
  }
}

// Per-GPU share of the first epoch: samples / GPUs. Unknown dataset size (samples 0) means the
// simulated steps stand for the steady state after the first epoch.
bool LoaderFeed::cached(int batch) const {
  if (data_.samples <= 0) return true;
  const double first_epoch =
      static_cast<double>(data_.samples) / ctx_->scenario->cluster.total_gpus();
  return static_cast<double>(batch) * batch_size_ >= first_epoch;
}

void LoaderFeed::record(int rank, int batch, const char* name, double start) {
  const int step = batch / ctx_->scenario->training.gradient_accumulation;
  if (ctx_->traced(rank, step) && now() > start)
    push_step_event(
        trace_, {rank, "data", std::string(name) + " batch " + std::to_string(batch), start, now()},
        step);
}

void LoaderFeed::read_from_storage(int rank, int batch) {
  const double bytes = batch_size_ * storage_bytes_per_sample(data_, cached(batch));
  if (bytes <= 0) return;
  ClusterPlatform& pf = *ctx_->platform;
  const int node = pf.node_of_rank(rank);
  sg4::Host* cpu = pf.node_cpus[node];
  if (data_.storage == StorageKind::kLocal) {
    node_disks_[node]->read(whole_bytes(bytes));
  } else if (data_.client_shares_nic) {
    ctx_->transport->transfer(pf.storage, cpu, bytes, counted(batch));
  } else {
    // Both constraints hold at once: the read ends when the slower of the two is done.
    const uint64_t whole = whole_bytes(bytes);
    sg4::IoPtr aggregate = store_disk_->read_async(whole);
    sg4::IoPtr client = client_disks_.empty() ? nullptr : client_disks_[node]->read_async(whole);
    // Link reports see the reads on the store's outgoing link and the node's client link.
    if (LinkMeter* meter = ctx_->meter.get()) {
      meter->add_io(aggregate, pf.storage_up, static_cast<double>(whole));
      if (client)
        meter->add_io(client, pf.node_links[node].client_down, static_cast<double>(whole));
    }
    aggregate->wait();
    if (client) client->wait();
    if (!counted(batch)) return;
    TrafficCounters& t = ctx_->traffic;
    t.sent[pf.storage] += bytes;
    t.received[cpu] += bytes;
    t.bytes_per_class[static_cast<int>(LinkClass::kStorage)] += bytes * (client ? 2 : 1);
  }
}

void LoaderFeed::read_loop(int rank) {
  Lane& lane = lanes_[rank];
  const uint64_t seed = ctx_->scenario->seed;
  for (int batch = 0;; ++batch) {
    lane.slots->acquire();
    if (data_.stall_probability > 0 &&
        seeded_uniform(seed, static_cast<uint64_t>(rank), static_cast<uint64_t>(batch), 11) <
            data_.stall_probability) {
      const double start = now();
      sg4::this_actor::sleep_for(data_.stall_time);
      record(rank, batch, "storage stall", start);
    }
    const double start = now();
    read_from_storage(rank, batch);
    record(rank, batch, "read", start);
    lane.read->release();
  }
}

void LoaderFeed::decode_loop(int rank) {
  Lane& lane = lanes_[rank];
  const int threads = data_.workers_per_gpu;
  // A batch costs batch / samples_per_core core-seconds, spread over the GPU's worker threads;
  // SimGrid's multi-core host shares its cores among the node's concurrent executions.
  const double flops =
      batch_size_ / data_.samples_per_core * sg4::this_actor::get_host()->get_speed();
  for (int batch = 0;; ++batch) {
    lane.read->acquire();
    const double start = now();
    sg4::this_actor::exec_init(flops / threads)->set_thread_count(threads)->wait();
    record(rank, batch, "decode", start);
    lane.decoded->release();
  }
}

void LoaderFeed::copy_loop(int rank) {
  Lane& lane = lanes_[rank];
  ClusterPlatform& pf = *ctx_->platform;
  sg4::Host* cpu = pf.node_cpus[pf.node_of_rank(rank)];
  sg4::Host* gpu = pf.gpus[rank];
  const double bytes = batch_size_ * copied_bytes_per_sample(data_);
  for (int batch = 0;; ++batch) {
    lane.decoded->acquire();
    const double start = now();
    if (bytes > 0) {
      ctx_->transport->transfer(cpu, gpu, bytes, counted(batch));
      // A calibration profile's measured pinned-copy rate caps the copy: it takes at least
      // bytes / h2d, and longer when the PCIe link it shares with the NIC is the slower.
      const double h2d = ctx_->plan->compute.h2d_bandwidth;
      if (h2d > 0 && now() - start < bytes / h2d) sg4::this_actor::sleep_until(start + bytes / h2d);
    }
    record(rank, batch, "h2d copy", start);
    lane.ready->release();
  }
}

void LoaderFeed::wait_batch(int rank, int step, int micro) {
  Lane& lane = lanes_[rank];
  lane.ready->acquire();
  lane.slots->release();
  if (gpu_decode_) {
    const double start = now();
    sg4::this_actor::sleep_for(batch_size_ * data_.gpu_decode_time);
    record(rank, step * ctx_->scenario->training.gradient_accumulation + micro, "gpu decode",
           start);
  }
}

}  // namespace

std::unique_ptr<DataFeed> make_loader_feed(RunContext* ctx) {
  return std::make_unique<LoaderFeed>(ctx);
}

}  // namespace ddpsim
