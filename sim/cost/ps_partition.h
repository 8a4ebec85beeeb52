// How parameter servers cut gradients into partitions and spread them over the servers, as
// BytePS does it (byteps/common/global.cc, operations.cc), with the placements of ps-lite users
// beside it. Pure functions, no SimGrid.
//
// A unit (a DDP bucket, or one tensor with sync.bucket_cap 0) of S bytes is cut into
// ceil(S / partition) partitions, all `partition` bytes but the last (InitTensor's key_list).
// Partition j of the unit declared d-th gets the key (d << 16) + j. BytePS rounds the partition
// size up to a multiple of local_size x 4096 (page-aligned shared memory) and sends each key to
// one server:
//   hash: server = djb2(decimal text of the key) mod servers (BYTEPS_KEY_HASH_FN default djb2);
//         with colocated and CPU servers (the byteps placement), BytePS's mixed mode
//         (Hash_Mixed_Mode): a key goes to the CPU servers when djb2(key) mod 101 falls below
//         101 x their optimal total share, then to djb2(that residue) mod their count.
//   least-loaded: the server with the fewest bytes so far relative to its share (tf_cnn_benchmarks'
//         ParamServerDeviceSetter places each variable so).
//   round-robin: keys dealt in order, weighted by share (TensorFlow's replica_device_setter).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/scenario/scenario.h"

namespace ddpsim {

// Partition sizes of a unit of `bytes`: ceil(bytes / partition) pieces, the last one shorter.
std::vector<double> partition_sizes(double bytes, double partition);

// BytePS's effective partition size: `requested` rounded up to a multiple of local_size x 4096.
double byteps_partition_bytes(double requested, int gpus_per_node);

// BytePS's key of partition `index` of the `declared`-th declared unit.
uint64_t byteps_key(int declared, int index);

// Hash_DJB2 of the decimal representation of `key`.
uint64_t djb2(uint64_t key);

// BytePS's mixed mode over `colocated` servers on the GPU machines and `cpu` CPU machines:
// returns a server index in [0, colocated + cpu) with the colocated ones first (ddpsim's byteps
// layout order).
int byteps_mixed_server(uint64_t key, int colocated, int cpu);

// Server of every key. `shares` (one per server, > 0 where the server holds parameters) guide
// least-loaded and round-robin; hash ignores them except through `mixed_colocated`: when >= 0,
// the first mixed_colocated servers are colocated and the rest CPU machines (BytePS mixed mode).
std::vector<int> place_keys(const std::vector<uint64_t>& keys, const std::vector<double>& bytes,
                            KeyPlacement placement, const std::vector<double>& shares,
                            int mixed_colocated = -1);

// Bytes each server holds under that placement.
std::vector<double> server_loads(const std::vector<double>& bytes, const std::vector<int>& server,
                                 int servers);

}  // namespace ddpsim
