// Closed forms of the input pipeline (DESIGN.md): a loader sustains, per GPU,
//   min(storage share / bytes read per sample, decode rate, PCIe bandwidth / bytes copied per
//   sample)
// when every GPU of the job loads at once (the symmetric steady state the loader actors reach).
// Stages are pipelined, so the slowest one sets the rate. All rates are samples/s per GPU;
// +infinity means the stage does not limit (e.g. everything served by the page cache).
#pragma once

#include "sim/scenario/scenario.h"

namespace ddpsim {

enum class LoaderStage { kStorage, kDecode, kPcie };
const char* loader_stage_name(LoaderStage stage);  // "storage", "decode", "pcie"

struct LoaderRates {
  double storage = 0;  // storage share per GPU / bytes read per sample
  double decode = 0;   // CPU: cores per GPU x samples per core; GPU: 1 / GPU time per sample
  double pcie = 0;     // PCIe bandwidth / bytes copied per sample

  double rate() const;        // the minimum: what the loader sustains
  LoaderStage limit() const;  // the stage that sets it (the first on ties)
};

// Storage read bandwidth after the IOPS limit: one read per sample, so at most
// iops x sample_bytes (iops 0 = unlimited). Local: per node; shared: aggregate.
double effective_storage_bandwidth(const DataSpec& data);

// Bytes one sample costs the storage: the page cache serves a fraction of the dataset after the
// first epoch (cached = true), nothing before.
double storage_bytes_per_sample(const DataSpec& data, bool cached);

// bytes/s of storage one GPU gets when all GPUs of the job read at once. Local: the node's
// device split among its GPUs. Shared: the aggregate split among all GPUs, capped per node by
// the client link (and by NIC 0 and the leaf's downlink when reads cross the compute network,
// client_shares_nic), split among the node's GPUs.
double storage_share_per_gpu(const DataSpec& data, const ClusterSpec& cluster);

// Decode/augment cores one GPU gets: its worker processes, capped by the node's cores shared
// evenly by the node's GPUs.
double decode_cores_per_gpu(const DataSpec& data, const ClusterSpec& cluster);

// Bytes copied host-to-device per sample: decoded tensors after CPU decode, the encoded sample
// when the GPU decodes it.
double copied_bytes_per_sample(const DataSpec& data);

// Pipeline stages per GPU: read, decode, copy (GPU decode: read, copy). The reader may run
// prefetch + stages batches ahead of the training loop.
int loader_stages(const DataSpec& data);

// Input batches the loader can hold in GPU memory at once, in bytes: the one training uses plus
// every pipeline slot (prefetch + stages, data_loader.h) when training is the slower side; with
// GPU decode, also the decoded output of the batch in use. 0 for synthetic data.
double gpu_input_buffer_bytes(const DataSpec& data, int batch_per_gpu);

// Stage rates in the steady state (after the first epoch when a page cache is configured).
// `h2d_bandwidth` > 0: a measured host-to-device copy rate (calibration profile) below the PCIe
// link's caps the copy stage.
LoaderRates loader_rates(const DataSpec& data, const ClusterSpec& cluster, bool cached = true,
                         double h2d_bandwidth = 0);

}  // namespace ddpsim
