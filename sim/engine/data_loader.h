// The real-data input pipeline as SimGrid actors. Per GPU, three pipelined stages run on its
// node's CPU host, one batch at a time each, and hand batches on through counting semaphores:
//   reader   storage -> host memory: local storage is a SimGrid disk per node (its bandwidth
//            after the IOPS limit, shared by the node's readers); a shared store is a real flow
//            from the storage host when reads cross the compute network (client_shares_nic:
//            NIC 0, the leaf downlink and the client link, competing with gradient traffic),
//            else a read on a disk of the aggregate bandwidth plus one on the node's client
//            disk (a separate storage network). The page cache serves its fraction after the
//            first epoch; a seeded stall (data.stall) makes the reader intermittently slow.
//   decoder  CPU decode + augment: one execution with workers_per_gpu threads on the node's
//            multi-core host, so a node's GPUs share its cores. GPU decode skips this stage and
//            costs the worker batch x gpu_time of GPU time when it takes the batch.
//   copier   host-to-device copy, a real flow cpu -> gpu over the GPU's PCIe link (shared with
//            NIC traffic crossing it).
// The reader may be at most prefetch + (number of stages) batches ahead of the training loop:
// `prefetch` batches may wait ready on the GPU besides one in each stage. The actors are daemons
// that keep prefetching past the last simulated step, as a real loader does; byte counters
// cover only the batches the run trains on. Three actors per GPU (two with GPU decode).
#pragma once

#include <memory>

#include "sim/engine/run_context.h"

namespace ddpsim {

std::unique_ptr<DataFeed> make_loader_feed(RunContext* ctx);

}  // namespace ddpsim
