// The `data:` section: the input pipeline (storage, decode, host-to-device copy, prefetch).
// Writing a `data:` section means real data unless it says `synthetic: true`.
#include "sim/input/scenario_sections.h"

namespace ddpsim {
namespace {

void parse_storage(const YamlSection& data, YamlContext* context, DataSpec* d) {
  auto value = data.get("storage");
  if (!value) {
    if (!d->synthetic) {
      data.require("storage",
                   "real data is read from storage: {kind: local|shared, bandwidth: "
                   "2GB/s}");
    }
    return;
  }
  YamlSection storage(
      *value, {"kind", "bandwidth", "iops", "client_bandwidth", "client_shares_nic", "page_cache"},
      context);
  if (auto v = storage.get("kind")) d->storage = as_enum<StorageKind>(*v);
  if (auto v = storage.get("bandwidth")) {
    d->storage_bandwidth = as_quantity(*v, units::Kind::kBandwidth, Sign::kPositive);
  } else if (!d->synthetic) {
    storage.require("bandwidth", "read bandwidth: per node for local, aggregate for shared");
  }
  if (auto v = storage.get("iops")) d->storage_iops = as_real(*v, 0);
  if (auto v = storage.get("client_bandwidth")) {
    d->client_bandwidth = as_quantity(*v, units::Kind::kBandwidth, Sign::kNonNegative);
  }
  if (auto v = storage.get("client_shares_nic")) d->client_shares_nic = as_bool(*v);
  if (auto v = storage.get("page_cache")) d->page_cache_fraction = as_real(*v, 0, false, 1);
}

void parse_decode(const YamlSection& data, YamlContext* context, DataSpec* d) {
  auto value = data.get("decode");
  if (!value) {
    if (!d->synthetic) {
      data.require("decode",
                   "samples are decoded before training: {kind: cpu, workers_per_gpu: "
                   "4, samples_per_core: 400} or {kind: gpu, gpu_time: 0.1ms}");
    }
    return;
  }
  YamlSection decode(*value, {"kind", "workers_per_gpu", "samples_per_core", "gpu_time"}, context);
  if (auto v = decode.get("kind")) d->decode = as_enum<DecodeKind>(*v);
  if (auto v = decode.get("workers_per_gpu")) d->workers_per_gpu = static_cast<int>(as_int(*v, 1));
  if (auto v = decode.get("samples_per_core")) d->samples_per_core = as_real(*v, 0, true);
  if (auto v = decode.get("gpu_time")) {
    d->gpu_decode_time = as_quantity(*v, units::Kind::kDuration, Sign::kPositive);
  }
  if (d->synthetic) return;
  if (d->decode == DecodeKind::kCpu && d->samples_per_core == 0) {
    decode.require("samples_per_core",
                   "decode kind cpu: samples one core decodes and augments "
                   "per second, e.g. 400 for ImageNet JPEGs");
  }
  if (d->decode == DecodeKind::kGpu && d->gpu_decode_time == 0) {
    decode.require("gpu_time", "decode kind gpu: GPU time per sample, e.g. 0.1ms");
  }
}

// An intermittently slow loader: each batch's read stalls with a seeded probability.
void parse_stall(const YamlSection& data, YamlContext* context, DataSpec* d) {
  auto value = data.get("stall");
  if (!value) return;
  YamlSection stall(*value, {"probability", "duration"}, context);
  if (auto v = stall.get("probability")) d->stall_probability = as_real(*v, 0, false, 1);
  if (auto v = stall.get("duration")) {
    d->stall_time = as_quantity(*v, units::Kind::kDuration, Sign::kNonNegative);
  } else if (d->stall_probability > 0) {
    stall.require("duration", "how long one stall lasts, e.g. 50ms");
  }
}

}  // namespace

void parse_data(const YamlValue& value, YamlContext* context, Scenario* scenario) {
  DataSpec& d = scenario->data;
  YamlSection data(value,
                   {"synthetic", "sample_bytes", "decoded_bytes", "samples", "storage", "decode",
                    "prefetch", "stall"},
                   context);
  d.synthetic = false;
  if (auto v = data.get("synthetic")) d.synthetic = as_bool(*v);
  const char* why_needed = "needed unless synthetic: true";
  if (auto v = data.get("sample_bytes")) {
    d.sample_bytes = as_quantity(*v, units::Kind::kBytes, Sign::kPositive);
  } else if (!d.synthetic) {
    data.require("sample_bytes",
                 std::string("bytes per sample as stored, e.g. 110KB; ") + why_needed);
  }
  if (auto v = data.get("decoded_bytes")) {
    d.decoded_bytes = as_quantity(*v, units::Kind::kBytes, Sign::kPositive);
  } else if (!d.synthetic) {
    data.require("decoded_bytes", std::string("bytes per sample copied to the GPU, e.g. "
                                              "150528B for 3x224x224 uint8; ") +
                                      why_needed);
  }
  if (auto v = data.get("samples")) d.samples = as_int(*v, 0, INT64_MAX);
  parse_storage(data, context, &d);
  parse_decode(data, context, &d);
  if (auto v = data.get("prefetch")) d.prefetch = static_cast<int>(as_int(*v, 0));
  parse_stall(data, context, &d);
}

}  // namespace ddpsim
