#include "sim/scenario/scenario_json.h"

#include "sim/scenario/enum_names.h"

namespace ddpsim {
namespace {

using nlohmann::json;

json gpu_json(const GpuSpec& g) {
  return {{"name", g.name},
          {"fp32_flop_per_s", g.fp32_flops},
          {"tf32_flop_per_s", g.tf32_flops},
          {"fp16_flop_per_s", g.fp16_flops},
          {"bf16_flop_per_s", g.bf16_flops},
          {"fp8_flop_per_s", g.fp8_flops},
          {"memory_bytes", g.memory_bytes},
          {"hbm_bandwidth_bytes_per_s", g.hbm_bandwidth},
          {"compute_capability", g.compute_capability / 10.0},
          {"pcie_p2p", g.pcie_p2p}};
}

json cluster_json(const ClusterSpec& c) {
  json j = {
      {"nodes", c.nodes},
      {"gpus_per_node", c.gpus_per_node},
      {"total_gpus", c.total_gpus()},
      {"gpu", gpu_json(c.gpu)},
      {"intra_node",
       {{"kind", enum_name(c.intra_node.kind)},
        {"bandwidth_bytes_per_s", c.intra_node.bandwidth},
        {"latency_s", c.intra_node.latency},
        {"p2p", c.intra_node.p2p}}},
      {"pcie_bandwidth_bytes_per_s", c.pcie_bandwidth},
      {"pcie_switch", {{"gpus", c.pcie_switch.gpus}, {"uplink_bytes_per_s", c.pcie_switch.uplink}}},
      {"host",
       {{"sockets", c.host.sockets},
        {"bandwidth_bytes_per_s", c.host.bandwidth},
        {"socket_link_bytes_per_s", c.host.socket_link},
        {"cpu", enum_name(c.host.cpu)}}},
      {"cpu_cores_per_node", c.cpu_cores_per_node},
      {"nic",
       {{"count", c.nic.count},
        {"bandwidth_bytes_per_s", c.nic.bandwidth},
        {"latency_s", c.nic.latency},
        {"transport", enum_name(c.nic.transport)},
        {"gpudirect", c.nic.gpudirect},
        {"efficiency", c.nic.efficiency},
        {"streams", c.nic.streams},
        {"stream_bandwidth_bytes_per_s", c.nic.stream_bandwidth},
        {"message_cost_s", c.nic.message_cost}}},
      {"fabric",
       {{"kind", enum_name(c.fabric.kind)},
        {"nodes_per_leaf", c.fabric.nodes_per_leaf},
        {"oversubscription", c.fabric.oversubscription}}}};
  if (!c.calibration.empty())
    j["calibration"] = {{"file", c.calibration}, {"applied", c.calibration_notes}};
  return j;
}

json model_json(const ModelSpec& m) {
  json j = {{"name", m.name}, {"sequence_length", m.sequence_length}, {"layers", m.mlp_layers}};
  if (!m.file.empty()) j["file"] = m.file;
  if (!m.hf_config.empty()) j["hf_config"] = m.hf_config;
  // The implementation in use (stated or the model's default); null: no attention layers.
  j["attention"] = m.attention ? json(enum_name(*m.attention)) : json(nullptr);
  return j;
}

json training_json(const TrainingSpec& t) {
  return {{"batch_per_gpu", t.batch_per_gpu},
          {"precision", enum_name(t.precision)},
          {"optimizer", enum_name(t.optimizer)},
          {"gradient_accumulation", t.gradient_accumulation},
          {"iterations", t.iterations},
          {"warmup", t.warmup},
          {"activation_checkpointing", t.activation_checkpointing}};
}

json alpha_beta_json(const SyncSpec& s) {
  json table = json::object();
  for (const auto& [algorithm, points] : s.alpha_beta) {
    json rows = json::array();
    for (const AlphaBetaPoint& p : points) {
      rows.push_back({{"min_bytes", p.min_bytes},
                      {"max_bytes", p.max_bytes},
                      {"alpha_s", p.alpha},
                      {"beta_s_per_byte", p.beta}});
    }
    table[enum_name(algorithm)] = rows;
  }
  return table;
}

json sync_json(const SyncSpec& s) {
  const ParameterServerSpec& ps = s.ps;
  return {{"strategy", enum_name(s.strategy)},
          {"algorithm", enum_name(s.algorithm)},
          {"mode", enum_name(s.mode)},
          {"bucket_cap_bytes", s.bucket_cap},
          {"first_bucket_bytes", s.first_bucket},
          {"overlap", s.overlap},
          {"buffer_broadcast_bytes", s.buffer_broadcast},
          {"gradient_bytes", s.gradient_bytes},
          {"channels", s.channels},
          {"latency_model", enum_name(s.latency_model)},
          {"nccl_latency", s.nccl_latency},
          {"protocol", enum_name(s.protocol)},
          {"schedule", enum_name(s.schedule)},
          {"partition_bytes", s.partition},
          {"credit_bytes", s.credit},
          {"fusion",
           {{"enabled", s.fusion.enabled},
            {"threshold_bytes", s.fusion.threshold},
            {"cycle_time_s", s.fusion.cycle_time},
            {"coordination_s", s.fusion.coordination}}},
          {"ps",
           {{"servers", ps.servers},
            {"placement", enum_name(ps.placement)},
            {"server_bandwidth_bytes_per_s", ps.server_nic_bandwidth},
            {"mode", enum_name(ps.mode)},
            {"staleness", ps.staleness},
            {"key_placement", enum_name(ps.key_placement)},
            {"update", enum_name(ps.update)},
            {"pull", enum_name(ps.pull)},
            {"update_flops_per_param", ps.update_flops_per_param},
            {"server_threads", ps.server_threads},
            {"server_memory_bandwidth_bytes_per_s", ps.server_memory_bandwidth}}},
          {"sharding",
           {{"strategy", enum_name(s.sharding.strategy)},
            {"wrap_min_params", s.sharding.wrap_min_params},
            {"backward_prefetch", enum_name(s.sharding.backward_prefetch)},
            {"forward_prefetch", s.sharding.forward_prefetch},
            {"limit_all_gathers", s.sharding.limit_all_gathers}}},
          {"local_sgd", {{"period", s.local_sgd_period}}},
          {"alpha_beta", s.alpha_beta_table},
          {"alpha_beta_table", alpha_beta_json(s)}};
}

json compute_json(const ComputeSpec& c) {
  return {{"mode", enum_name(c.mode)},
          {"efficiency", c.efficiency},
          {"memory_efficiency", c.memory_efficiency},
          {"step_time_s", c.step_time},
          {"profile", c.profile},
          {"overlap_slowdown", c.overlap_slowdown},
          {"framework_overhead", c.framework_overhead}};
}

json data_json(const DataSpec& d) {
  return {{"synthetic", d.synthetic},
          {"sample_bytes", d.sample_bytes},
          {"decoded_bytes", d.decoded_bytes},
          {"samples", d.samples},
          {"storage",
           {{"kind", enum_name(d.storage)},
            {"bandwidth_bytes_per_s", d.storage_bandwidth},
            {"iops", d.storage_iops},
            {"client_bandwidth_bytes_per_s", d.client_bandwidth},
            {"client_shares_nic", d.client_shares_nic},
            {"page_cache", d.page_cache_fraction}}},
          {"decode",
           {{"kind", enum_name(d.decode)},
            {"workers_per_gpu", d.workers_per_gpu},
            {"samples_per_core", d.samples_per_core},
            {"gpu_time_s", d.gpu_decode_time}}},
          {"prefetch", d.prefetch},
          {"stall", {{"probability", d.stall_probability}, {"duration_s", d.stall_time}}}};
}

json stragglers_json(const StragglerSpec& s) {
  json fixed = json::object();
  for (const auto& [rank, factor] : s.fixed) fixed[std::to_string(rank)] = factor;
  return {{"kind", enum_name(s.kind)},
          {"fixed", fixed},
          {"sigma", s.sigma},
          {"max", s.max},
          {"per_iteration", s.per_iteration}};
}

}  // namespace

nlohmann::json scenario_to_json(const Scenario& s) {
  return {{"source", s.source},
          {"name", s.name},
          {"seed", s.seed},
          {"cluster", cluster_json(s.cluster)},
          {"model", model_json(s.model)},
          {"training", training_json(s.training)},
          {"sync", sync_json(s.sync)},
          {"compute", compute_json(s.compute)},
          {"data", data_json(s.data)},
          {"stragglers", stragglers_json(s.stragglers)},
          {"simulation", {{"scope", enum_name(s.simulation.scope)}}}};
}

}  // namespace ddpsim
