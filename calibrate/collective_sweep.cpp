#include "calibrate/collective_sweep.h"

#include <algorithm>

#include "kernels/check.h"
#include "sim/measurements/nccl_tests_import.h"

namespace ddpsim::calibrate {

CurrentDeviceGuard::CurrentDeviceGuard() { DDPSIM_CUDA_CHECK(cudaGetDevice(&device_)); }

CurrentDeviceGuard::~CurrentDeviceGuard() { cudaSetDevice(device_); }

Communicator::Communicator(int devices, size_t max_bytes) : max_bytes_(max_bytes) {
  CurrentDeviceGuard guard;
  comms_.resize(devices, nullptr);
  streams_.resize(devices, nullptr);
  try {
    for (int d = 0; d < devices; ++d) {
      DDPSIM_CUDA_CHECK(cudaSetDevice(d));
      DDPSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&streams_[d], cudaStreamNonBlocking));
      send_.emplace_back(max_bytes);
      recv_.emplace_back(max_bytes);
      send_.back().zero(streams_[d]);
    }
    DDPSIM_NCCL_CHECK(ncclCommInitAll(comms_.data(), devices, nullptr));
  } catch (...) {
    for (ncclComm_t c : comms_)
      if (c != nullptr) ncclCommDestroy(c);
    for (cudaStream_t s : streams_)
      if (s != nullptr) cudaStreamDestroy(s);
    throw;
  }
}

Communicator::~Communicator() {
  CurrentDeviceGuard guard;
  for (ncclComm_t c : comms_)
    if (c != nullptr) ncclCommDestroy(c);
  for (size_t d = 0; d < streams_.size(); ++d) {
    cudaSetDevice(static_cast<int>(d));
    if (streams_[d] != nullptr) cudaStreamDestroy(streams_[d]);
  }
  send_.clear();  // cudaFree finds each buffer's device itself (unified addressing)
  recv_.clear();
}

std::string Communicator::version() {
  int v = 0;
  DDPSIM_NCCL_CHECK(ncclGetVersion(&v));
  // NCCL >= 2.9 encodes major * 10000 + minor * 100 + patch.
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
}

bool Communicator::launch(CollectiveOp op, size_t bytes) {
  const size_t count = bytes / sizeof(float);
  const size_t per_rank = count / comms_.size();
  if ((op == CollectiveOp::kAllGather || op == CollectiveOp::kReduceScatter) && per_rank == 0)
    return false;
  DDPSIM_NCCL_CHECK(ncclGroupStart());
  for (size_t r = 0; r < comms_.size(); ++r) {
    const void* send = send_[r].get();
    void* recv = recv_[r].get();
    switch (op) {
      case CollectiveOp::kAllReduce:
        DDPSIM_NCCL_CHECK(
            ncclAllReduce(send, recv, count, ncclFloat, ncclSum, comms_[r], streams_[r]));
        break;
      case CollectiveOp::kAllGather:
        DDPSIM_NCCL_CHECK(ncclAllGather(send, recv, per_rank, ncclFloat, comms_[r], streams_[r]));
        break;
      case CollectiveOp::kReduceScatter:
        DDPSIM_NCCL_CHECK(
            ncclReduceScatter(send, recv, per_rank, ncclFloat, ncclSum, comms_[r], streams_[r]));
        break;
      case CollectiveOp::kBroadcast:
        DDPSIM_NCCL_CHECK(ncclBroadcast(send, recv, count, ncclFloat, 0, comms_[r], streams_[r]));
        break;
    }
  }
  DDPSIM_NCCL_CHECK(ncclGroupEnd());
  return true;
}

void Communicator::synchronize() {
  CurrentDeviceGuard guard;
  for (size_t d = 0; d < streams_.size(); ++d) {
    DDPSIM_CUDA_CHECK(cudaSetDevice(static_cast<int>(d)));
    DDPSIM_CUDA_CHECK(cudaStreamSynchronize(streams_[d]));
  }
}

namespace {

// One timed collective per repeat: events bracket it on every rank; the slowest rank counts.
RepeatStats time_collective(Communicator& comm, CollectiveOp op, size_t bytes, int warmup,
                            int repeats) {
  CurrentDeviceGuard guard;
  for (int i = 0; i < warmup; ++i) comm.launch(op, bytes);
  const int ranks = comm.ranks();
  std::vector<std::vector<cudaEvent_t>> events(ranks,
                                               std::vector<cudaEvent_t>(2 * repeats, nullptr));
  auto destroy = [&] {
    for (int r = 0; r < ranks; ++r) {
      cudaSetDevice(r);
      for (cudaEvent_t e : events[r])
        if (e != nullptr) cudaEventDestroy(e);
    }
  };
  std::vector<double> samples(repeats, 0.0);
  try {
    for (int r = 0; r < ranks; ++r) {
      DDPSIM_CUDA_CHECK(cudaSetDevice(r));
      for (cudaEvent_t& e : events[r]) DDPSIM_CUDA_CHECK(cudaEventCreate(&e));
    }
    for (int i = 0; i < repeats; ++i) {
      for (int r = 0; r < ranks; ++r) {
        DDPSIM_CUDA_CHECK(cudaSetDevice(r));
        DDPSIM_CUDA_CHECK(cudaEventRecord(events[r][2 * i], comm.stream(r)));
      }
      comm.launch(op, bytes);
      for (int r = 0; r < ranks; ++r) {
        DDPSIM_CUDA_CHECK(cudaSetDevice(r));
        DDPSIM_CUDA_CHECK(cudaEventRecord(events[r][2 * i + 1], comm.stream(r)));
      }
    }
    comm.synchronize();
    for (int r = 0; r < ranks; ++r) {
      DDPSIM_CUDA_CHECK(cudaSetDevice(r));
      for (int i = 0; i < repeats; ++i) {
        float ms = 0;
        DDPSIM_CUDA_CHECK(cudaEventElapsedTime(&ms, events[r][2 * i], events[r][2 * i + 1]));
        samples[i] = std::max(samples[i], ms * 1e-3);
      }
    }
  } catch (...) {
    destroy();
    throw;
  }
  destroy();
  return repeat_stats(samples);
}

const char* redop(CollectiveOp op) {
  return op == CollectiveOp::kAllReduce || op == CollectiveOp::kReduceScatter ? "sum" : "none";
}

}  // namespace

CollectiveSweep sweep_collective(Communicator& comm, CollectiveOp op, const SweepOptions& options,
                                 std::FILE* out) {
  kernels::ScopedLayer scope(std::string("NCCL ") + collective_op_key(op) + " sweep");
  CollectiveSweep sweep;
  sweep.op = op;
  sweep.algorithm = AllReduceAlgorithm::kAuto;  // NCCL's own choice per size
  sweep.gpus = comm.ranks();
  sweep.nodes = 1;
  sweep.source = "ddpsim-calibrate";
  const double factor = bus_bandwidth_factor(op, comm.ranks());
  std::fprintf(out, "# %s over %d GPU(s), out-of-place, median of %d\n", collective_op_key(op),
               comm.ranks(), options.repeats);
  std::fprintf(out, "#%12s %12s %8s %6s %6s %9s %8s %8s %8s\n", "size", "count", "type", "redop",
               "root", "time", "algbw", "busbw", "spread");
  std::fprintf(out, "#%12s %12s %8s %6s %6s %9s %8s %8s %8s\n", "(B)", "(elements)", "", "", "",
               "(us)", "(GB/s)", "(GB/s)", "(%)");
  for (size_t bytes = options.min_bytes; bytes <= std::min(options.max_bytes, comm.max_bytes());
       bytes *= 2) {
    if (!comm.launch(op, bytes)) continue;  // too small to split over the ranks
    comm.synchronize();
    const RepeatStats t = time_collective(comm, op, bytes, options.warmup, options.repeats);
    const double algbw = bytes / t.median / 1e9;
    std::fprintf(out, " %12zu %12zu %8s %6s %6d %9.2f %8.2f %8.2f %8.2f\n", bytes,
                 bytes / sizeof(float), "float", redop(op), op == CollectiveOp::kBroadcast ? 0 : -1,
                 t.median * 1e6, algbw, algbw * factor, 100 * t.spread());
    sweep.samples.push_back({static_cast<double>(bytes), t.median, 0});
  }
  if (sweep.samples.size() >= 2) {
    fit_sweep(&sweep);
    std::fprintf(out, "%s", format_sweep_table(sweep).c_str());
  }
  std::fflush(out);
  return sweep;
}

}  // namespace ddpsim::calibrate
