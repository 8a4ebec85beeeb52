// trace.json against the published Trace Event Format (Chrome's "Trace Event Format" document,
// docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU, which Perfetto's
// JSON importer follows): every event's required fields per phase, processes numbered from 1
// (Perfetto shows pid 0 as the idle "swapper"), metadata only for lanes with slices, args on
// every slice, flow arrows that pair up from "backward to bucket k" to the all-reduce of bucket
// k, counter tracks for link utilisation, one ProfilerStep#N per traced GPU enclosing its step,
// and the default selection of GPUs (one per node, the slowest added).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "sim/engine/simulation.h"
#include "sim/engine/trace_selection.h"
#include "sim/results/hta_trace.h"
#include "sim/results/result_json.h"
#include "sim/input/scenario_loader.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

using nlohmann::json;
using testing::read_text;

Scenario small(std::vector<std::string> overrides = {}) {
  overrides.push_back("cluster.nodes=4");
  return parse_scenario_text(
      read_text(std::string(DDPSIM_SOURCE_DIR) + "/tests/data/small_cluster.yaml"),
      "small_cluster.yaml", overrides);
}

json chrome(const Scenario& s, TraceGpus gpus = {}) {
  SimOptions options;
  options.trace = gpus;
  options.baseline = false;
  return trace_to_chrome_json(simulate(s, options));
}

std::vector<json> of_phase(const json& trace, const std::string& ph) {
  std::vector<json> out;
  for (const json& e : trace.at("traceEvents"))
    if (e.at("ph") == ph) out.push_back(e);
  return out;
}

// The required fields of each phase the file uses, as the format document defines them.
void expect_well_formed(const json& trace) {
  ASSERT_TRUE(trace.contains("traceEvents") && trace.at("traceEvents").is_array());
  EXPECT_TRUE(trace.at("displayTimeUnit") == "ms" || trace.at("displayTimeUnit") == "ns");
  const std::set<std::string> metadata = {"process_name", "process_sort_index", "thread_name",
                                          "thread_sort_index"};
  for (const json& e : trace.at("traceEvents")) {
    const std::string ph = e.at("ph");
    ASSERT_TRUE(e.contains("name") && e.at("name").is_string()) << e;
    ASSERT_TRUE(e.contains("pid") && e.at("pid").is_number_integer()) << e;
    EXPECT_GE(e.at("pid").get<int>(), 1) << e;
    if (ph == "M") {
      EXPECT_TRUE(metadata.count(e.at("name"))) << e;
      ASSERT_TRUE(e.at("args").is_object()) << e;
      continue;
    }
    ASSERT_TRUE(e.contains("ts") && e.at("ts").is_number()) << e;
    EXPECT_GE(e.at("ts").get<double>(), 0) << e;
    if (ph == "X") {
      ASSERT_TRUE(e.contains("tid") && e.at("tid").is_number_integer()) << e;
      ASSERT_TRUE(e.contains("dur") && e.at("dur").is_number()) << e;
      EXPECT_GE(e.at("dur").get<double>(), 0) << e;
      ASSERT_TRUE(e.contains("args") && e.at("args").is_object()) << e;
    } else if (ph == "s" || ph == "f") {
      ASSERT_TRUE(e.contains("id") && e.contains("cat") && e.contains("tid")) << e;
      if (ph == "f") {
        EXPECT_EQ(e.value("bp", ""), "e") << e;  // bound to the enclosing slice
      }
    } else if (ph == "C") {
      ASSERT_TRUE(e.contains("args") && e.at("args").is_object() && !e.at("args").empty()) << e;
      for (const auto& [key, value] : e.at("args").items()) EXPECT_TRUE(value.is_number()) << e;
    } else {
      ADD_FAILURE() << "phase " << ph << " is not one ddpsim writes: " << e;
    }
  }
}

// The X slice on (pid, tid) that contains ts, or null.
const json* slice_at(const std::vector<json>& slices, int pid, int tid, double ts) {
  for (const json& x : slices)
    if (x.at("pid") == pid && x.at("tid") == tid && x.at("ts").get<double>() <= ts &&
        ts <= x.at("ts").get<double>() + x.at("dur").get<double>())
      return &x;
  return nullptr;
}

TEST(TraceFormat, SlicesFlowsCountersAndStepMarkersFollowTheTraceEventFormat) {
  const json trace = chrome(small());
  expect_well_formed(trace);
  const std::vector<json> slices = of_phase(trace, "X");
  ASSERT_FALSE(slices.empty());

  // Processes: GPU r is pid r + 1, named, one per traced GPU (auto: the first GPU of each of
  // the 4 nodes); every named lane has slices, and synthetic data draws no data lane.
  std::map<int, std::string> processes;
  std::set<std::pair<int, int>> named_lanes, used_lanes;
  for (const json& m : of_phase(trace, "M")) {
    const int pid = m.at("pid");
    if (m.at("name") == "process_name") processes[pid] = m.at("args").at("name");
    if (m.at("name") == "thread_name") {
      named_lanes.insert({pid, m.at("tid").get<int>()});
      EXPECT_NE(m.at("args").at("name"), "data") << m;
    }
  }
  for (const json& x : slices) used_lanes.insert({x.at("pid").get<int>(), x.at("tid").get<int>()});
  EXPECT_EQ(named_lanes, used_lanes);
  for (int rank : {0, 2, 4, 6})
    EXPECT_EQ(processes[rank + 1],
              "GPU " + std::to_string(rank) + " (node " + std::to_string(rank / 2) + ")");

  // Args on every slice; bucket slices say which bucket, its bytes and tensors, and the
  // all-reduce its algorithm and the link that bound it.
  int comm = 0;
  for (const json& x : slices) {
    const json& args = x.at("args");
    EXPECT_TRUE(args.contains("step")) << x;
    const std::string name = x.at("name");
    if (name.find("bucket ") != std::string::npos) {
      EXPECT_TRUE(args.at("bucket").is_number_integer()) << x;
      EXPECT_GT(args.at("bytes").get<double>(), 0) << x;
      EXPECT_GE(args.at("tensors").get<int>(), 1) << x;
    }
    if (x.at("cat") == "comm") {
      ++comm;
      EXPECT_EQ(args.at("algorithm").get<std::string>().rfind("ring/", 0), 0u) << x;
      // Ring NICs are equally busy: each GPU's slice names its own node's NIC.
      const int rank = x.at("pid").get<int>() - 1;
      EXPECT_EQ(args.at("link"), "node" + std::to_string(rank / 2) + "/nic0 tx") << x;
      EXPECT_GT(args.at("link utilisation %").get<double>(), 0) << x;
      EXPECT_LE(args.at("link utilisation %").get<double>(), 100 + 1e-6) << x;
    }
  }
  EXPECT_GT(comm, 0);

  // Flow arrows pair up by id, start inside "backward to bucket k" and end inside the
  // all-reduce of bucket k on the same GPU, later.
  const std::vector<json> starts = of_phase(trace, "s"), ends = of_phase(trace, "f");
  ASSERT_FALSE(starts.empty());
  EXPECT_EQ(starts.size(), ends.size());
  std::set<int> ids;
  for (const json& s : starts) {
    EXPECT_TRUE(ids.insert(s.at("id").get<int>()).second) << "id used twice: " << s;
    const json* end = nullptr;
    for (const json& f : ends)
      if (f.at("id") == s.at("id")) end = &f;
    ASSERT_NE(end, nullptr) << s;
    EXPECT_EQ(end->at("name"), s.at("name"));
    EXPECT_EQ(end->at("cat"), s.at("cat"));
    EXPECT_EQ(end->at("pid"), s.at("pid"));
    EXPECT_GE(end->at("ts").get<double>(), s.at("ts").get<double>());
    const json* from = slice_at(slices, s.at("pid"), s.at("tid"), s.at("ts"));
    const json* to = slice_at(slices, end->at("pid"), end->at("tid"), end->at("ts"));
    ASSERT_TRUE(from != nullptr && to != nullptr) << s;
    const int k = from->at("args").at("bucket");
    EXPECT_EQ(from->at("name"), "backward to bucket " + std::to_string(k));
    EXPECT_EQ(to->at("name"), "all-reduce bucket " + std::to_string(k));
  }

  // Counter tracks: link utilisation in % (0..100), in a named process of their own, each
  // series in time order.
  const std::vector<json> counters = of_phase(trace, "C");
  ASSERT_FALSE(counters.empty());
  std::map<std::string, double> last_ts;
  for (const json& c : counters) {
    EXPECT_EQ(processes[c.at("pid").get<int>()], "network links (utilisation %)") << c;
    const double u = c.at("args").at("utilisation %");
    EXPECT_GE(u, 0);
    EXPECT_LE(u, 100 + 1e-6);
    const std::string link = c.at("name");
    if (last_ts.count(link)) {
      EXPECT_GE(c.at("ts").get<double>(), last_ts[link]) << c;
    }
    last_ts[link] = c.at("ts");
  }

  // One ProfilerStep#1 per traced GPU (the last of 2 steps), enclosing that GPU's slices.
  std::map<int, const json*> steps;
  for (const json& x : slices)
    if (x.at("cat") == "step") {
      EXPECT_EQ(x.at("name"), "ProfilerStep#1");
      EXPECT_TRUE(steps.emplace(x.at("pid").get<int>(), &x).second) << x;
    }
  EXPECT_EQ(steps.size(), 4u);
  for (const json& x : slices) {
    const json& step = *steps.at(x.at("pid").get<int>());
    const double t0 = step.at("ts"), t1 = t0 + step.at("dur").get<double>();
    EXPECT_GE(x.at("ts").get<double>(), t0 - 1e-6) << x;
    EXPECT_LE(x.at("ts").get<double>() + x.at("dur").get<double>(), t1 + 1e-6) << x;
  }
}

TEST(TraceFormat, RealDataDrawsADataLaneAndAListedGpuIsTraced) {
  const json trace =
      chrome(small({"data.synthetic=false", "data.sample_bytes=100KB", "data.decoded_bytes=150528B",
                    "data.decode={kind: cpu, workers_per_gpu: 4, samples_per_core: 400}",
                    "data.storage={kind: local, bandwidth: 2GB/s}"}),
             TraceGpus{TraceGpus::Kind::kList, {3}});
  expect_well_formed(trace);
  std::set<std::string> lanes;
  std::set<int> pids;
  for (const json& m : of_phase(trace, "M"))
    if (m.at("name") == "thread_name") lanes.insert(m.at("args").at("name"));
  for (const json& x : of_phase(trace, "X")) pids.insert(x.at("pid").get<int>());
  EXPECT_TRUE(lanes.count("data")) << trace.dump();
  EXPECT_EQ(pids, std::set<int>{4});  // GPU 3
}

// ZeRO and FSDP slices carry what a DDP bucket's slice carries: the bytes of the call, the
// collective and NCCL's algorithm (the sharded collectives' own), and arrows from the backward
// segment that produced the gradients to their reduce-scatter.
TEST(TraceFormat, ShardedCommunicationSlicesCarryBytesCollectiveAlgorithmAndArrows) {
  for (const char* strategy : {"zero2", "zero3", "fsdp-hybrid"}) {
    SCOPED_TRACE(strategy);
    const Scenario s = small({std::string("sync.sharding=") + strategy});
    SimOptions options;
    options.baseline = false;
    const SimulationResult r = simulate(s, options);
    const json trace = trace_to_chrome_json(r);
    expect_well_formed(trace);
    const std::vector<json> slices = of_phase(trace, "X");
    std::map<std::string, int> collectives;
    for (const json& x : slices) {
      if (x.at("cat").get<std::string>().rfind("comm", 0) != 0) continue;
      const json& args = x.at("args");
      const std::string collective = args.at("collective");
      ++collectives[collective];
      EXPECT_TRUE(args.at("bytes").is_number_integer()) << x;
      // The MLP's root unit holds no parameter: its all-gather moves 0 bytes, truly.
      EXPECT_GE(args.at("bytes").get<double>(), 0) << x;
      if (args.at("bytes").get<double>() > 0) ++collectives["with bytes"];
      EXPECT_EQ(args.at("algorithm").get<std::string>().rfind("ring", 0), 0u) << x;
      EXPECT_TRUE(args.contains(strategy == std::string("zero2") ? "bucket" : "unit")) << x;
      const std::string name = x.at("name");
      EXPECT_NE(name.find(collective == "all-reduce" ? "all-reduce shard" : collective),
                std::string::npos)
          << x;
    }
    EXPECT_GT(collectives["with bytes"], 0);
    EXPECT_GT(collectives["reduce-scatter"], 0);
    EXPECT_GT(collectives["all-gather"], 0);
    EXPECT_EQ(collectives.count("all-reduce"), strategy == std::string("fsdp-hybrid") ? 1u : 0u);
    // zero2 reduce-scatters DDP's buckets: each slice's bytes are its bucket's.
    if (strategy == std::string("zero2")) {
      for (const json& x : slices) {
        if (x.at("name").get<std::string>().rfind("reduce-scatter bucket ", 0) != 0) continue;
        EXPECT_EQ(x.at("args").at("bytes").get<double>(),
                  r.buckets.at(x.at("args").at("bucket").get<int>()).bytes)
            << x;
      }
    }
    // Arrows pair up and end on a reduction of the gradients they start from.
    const std::vector<json> starts = of_phase(trace, "s"), ends = of_phase(trace, "f");
    ASSERT_FALSE(starts.empty());
    ASSERT_EQ(starts.size(), ends.size());
    for (size_t i = 0; i < starts.size(); ++i) {
      const json* from =
          slice_at(slices, starts[i].at("pid"), starts[i].at("tid"), starts[i].at("ts"));
      const json* to = slice_at(slices, ends[i].at("pid"), ends[i].at("tid"), ends[i].at("ts"));
      ASSERT_TRUE(from != nullptr && to != nullptr) << starts[i];
      EXPECT_EQ(from->at("name").get<std::string>().rfind("backward", 0), 0u) << *from;
      EXPECT_NE(to->at("args").at("collective"), "all-gather") << *to;
      const char* key = from->at("args").contains("bucket") ? "bucket" : "unit";
      EXPECT_EQ(from->at("args").at(key), to->at("args").at(key)) << *from << *to;
    }
  }
}

// Holistic Trace Analysis reads one Kineto-like file per rank (hta/common/trace_file.py:
// distributedInfo.rank; parser_config.py: ts, dur, name, cat, pid, tid), GPU events by their
// args.stream, communication kernels by "ncclKernel" in the name, copies by "Memcpy"
// (hta/utils/utils.py), and the args it knows by their types (event_args_1.0.0.yaml: bytes,
// stream, correlation, device, Group size are integers).
TEST(TraceFormat, HtaTracesHaveOneFilePerRankInKinetosShape) {
  SimOptions options;
  options.baseline = false;
  const Scenario s =
      small({"data.synthetic=false", "data.sample_bytes=100KB", "data.decoded_bytes=150528B",
             "data.decode={kind: cpu, workers_per_gpu: 4, samples_per_core: 400}",
             "data.storage={kind: local, bandwidth: 2GB/s}"});
  const SimulationResult r = simulate(s, options);
  const auto traces = hta_traces(r, s.cluster.gpu);
  ASSERT_EQ(traces.size(), r.traced_gpus.size());
  ASSERT_EQ(traces.size(), 4u);
  for (size_t i = 0; i < traces.size(); ++i) {
    const auto& [rank, t] = traces[i];
    EXPECT_EQ(rank, r.traced_gpus[i]);
    EXPECT_EQ(t.at("distributedInfo").at("rank"), rank);
    EXPECT_EQ(t.at("distributedInfo").at("world_size"), 8);
    EXPECT_EQ(t.at("distributedInfo").at("backend"), "nccl");
    EXPECT_EQ(t.at("deviceProperties").at(0).at("name"), "v100-sxm2-16gb");
    EXPECT_EQ(t.at("deviceProperties").at(0).at("computeMajor"), 7);
    std::map<std::string, int> kinds;
    std::set<int> correlations, launches;
    double gpu_busy = 0;
    for (const json& e : t.at("traceEvents")) {
      if (e.at("ph") != "X") continue;
      for (const char* key : {"ts", "dur", "name", "cat", "pid", "tid"})
        ASSERT_TRUE(e.contains(key)) << e;
      const std::string cat = e.at("cat");
      const json& args = e.at("args");
      if (cat == "kernel" || cat == "gpu_memcpy") {
        EXPECT_EQ(args.at("stream"), e.at("tid")) << e;
        EXPECT_TRUE(args.at("correlation").is_number_integer()) << e;
        EXPECT_TRUE(correlations.insert(args.at("correlation").get<int>()).second) << e;
        EXPECT_EQ(args.at("device"), 0);
        if (args.contains("bytes")) {
          EXPECT_TRUE(args.at("bytes").is_number_integer()) << e;
        }
        const std::string name = e.at("name");
        if (name.find("ncclKernel_") == 0) {
          ++kinds["communication"];
          EXPECT_EQ(name.rfind("ncclKernel_AllReduce_RING", 0), 0u) << name;
          EXPECT_EQ(args.at("Collective name"), "all-reduce");
          EXPECT_EQ(args.at("Group size"), 8);
        } else if (name.find("Memcpy HtoD") == 0) {
          ++kinds["memory"];
          EXPECT_EQ(cat, "gpu_memcpy");
        } else {
          ++kinds["computation"];
          EXPECT_EQ(name.find("wait"), std::string::npos) << name;  // waits are idle time
          gpu_busy += e.at("dur").get<double>();
        }
      } else if (cat == "cuda_runtime") {
        launches.insert(args.at("correlation").get<int>());
      } else {
        EXPECT_TRUE(cat == "user_annotation" || cat == "cpu_op") << e;
        EXPECT_FALSE(args.contains("stream")) << e;  // host events: no stream
      }
    }
    EXPECT_GT(kinds["communication"], 0);
    EXPECT_GT(kinds["memory"], 0);
    EXPECT_GT(kinds["computation"], 0);
    EXPECT_EQ(launches, correlations);  // every kernel has its launch
    // The compute stream's kernels are the forward, backward and optimizer time the results
    // report (one measured step, every GPU alike).
    const Breakdown& b = r.breakdown;
    const double compute_us = 1e6 * (b.forward + b.backward + b.optimizer);
    EXPECT_NEAR(gpu_busy, compute_us, 1e-6 * compute_us);
  }
}

TEST(TraceSelection, AutoTakesTheFirstGpuOfEveryNodeSpreadOver64AndAddsTheSlowest) {
  Scenario s = small();
  s.cluster.nodes = 100;
  s.cluster.gpus_per_node = 8;
  const std::vector<int> ranks = traced_ranks(s, TraceGpus{});
  ASSERT_EQ(ranks.size(), 64u);
  EXPECT_EQ(ranks.front(), 0);
  EXPECT_EQ(ranks.back(), 99 * 8);
  for (size_t i = 0; i < ranks.size(); ++i) {
    EXPECT_EQ(ranks[i] % 8, 0);
    if (i) {
      EXPECT_GT(ranks[i], ranks[i - 1]);
    }
  }
  const Scenario slow = small({"stragglers.kind=fixed", "stragglers.fixed={5: 1.5}"});
  EXPECT_EQ(traced_ranks(slow, TraceGpus{}), (std::vector<int>{0, 2, 4, 5, 6}));
  EXPECT_EQ(traced_ranks(small(), TraceGpus{TraceGpus::Kind::kAll, {}}).size(), 8u);
  EXPECT_TRUE(traced_ranks(small(), TraceGpus::none()).empty());
  EXPECT_THROW(traced_ranks(small(), TraceGpus{TraceGpus::Kind::kList, {8}}), InputError);
}

TEST(TraceSelection, ParsesRanksAndRangesAndWritesThemBack) {
  TraceGpus gpus;
  std::string error;
  ASSERT_TRUE(parse_trace_gpus("8-10,0,5,9", &gpus, &error)) << error;
  EXPECT_EQ(gpus.ranks, (std::vector<int>{0, 5, 8, 9, 10}));
  EXPECT_EQ(trace_gpus_text(gpus), "0,5,8,9,10");
  for (const char* word : {"auto", "all", "none"}) {
    ASSERT_TRUE(parse_trace_gpus(word, &gpus, &error));
    EXPECT_EQ(trace_gpus_text(gpus), word);
  }
  for (const char* bad : {"", "-1", "1-", "2-1", "a", "1,,2", "3,", "1.5", "0-2000000"})
    EXPECT_FALSE(parse_trace_gpus(bad, &gpus, &error)) << bad;
}

}  // namespace
}  // namespace ddpsim
