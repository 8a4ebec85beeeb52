#include "sim/sweep/results_csv.h"

#include <charconv>
#include <functional>

#include "sim/process/build_info.h"
#include "sim/scenario/enum_names.h"
#include "sim/text/input_error.h"

namespace ddpsim {

std::string format_number(double value) {
  if (value == 0) return "0";  // also folds -0
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, end.ptr);
}

namespace {

std::string num(double v) { return format_number(v); }
std::string num(int v) { return std::to_string(v); }
std::string flag(bool v) { return v ? "true" : "false"; }
// Without a single-GPU run (--no-baseline) there is no baseline rate nor efficiency: no number.
std::string baseline(const SimulationResult& r, double v) {
  return r.single_gpu_samples_per_second > 0 ? num(v) : std::string();
}

// The LLM units exist for transformers only: no number for other models.
std::string llm(const SimulationResult& r, double v) {
  return r.tokens_per_sample > 0 ? num(v) : std::string();
}

const char* const kProvenanceColumns[] = {"ddpsim_version", "source_commit", "inputs_sha256"};

// Bytes per gradient element on the wire (sync.gradient_dtype: fp32 4, fp16/bf16 2). The hook
// for a gradient dtype column: when the scenario keeps the dtype's name (training.gradient_dtype),
// this column becomes that name.
std::string gradient_bytes_column(const Scenario& s) { return num(s.sync.gradient_bytes); }

struct ScenarioColumn {
  const char* name;
  std::function<std::string(const Scenario&)> value;
};
struct ResultColumn {
  const char* name;
  std::function<std::string(const SimulationResult&)> value;
};

// The order here is the column order of results.csv; docs/results-csv.md lists the same.
const std::vector<ScenarioColumn>& scenario_columns() {
  static const std::vector<ScenarioColumn> columns = {
      {"scenario_name", [](const Scenario& s) { return s.name; }},
      {"model_name", [](const Scenario& s) { return s.model.name; }},
      {"nodes", [](const Scenario& s) { return num(s.cluster.nodes); }},
      {"gpus_per_node", [](const Scenario& s) { return num(s.cluster.gpus_per_node); }},
      {"gpus", [](const Scenario& s) { return num(s.cluster.total_gpus()); }},
      {"gpu_name", [](const Scenario& s) { return s.cluster.gpu.name; }},
      {"nic_count", [](const Scenario& s) { return num(s.cluster.nic.count); }},
      {"nic_bandwidth_bytes_per_s", [](const Scenario& s) { return num(s.cluster.nic.bandwidth); }},
      {"batch_per_gpu", [](const Scenario& s) { return num(s.training.batch_per_gpu); }},
      {"gradient_accumulation",
       [](const Scenario& s) { return num(s.training.gradient_accumulation); }},
      {"precision", [](const Scenario& s) { return std::string(enum_name(s.training.precision)); }},
      {"optimizer", [](const Scenario& s) { return std::string(enum_name(s.training.optimizer)); }},
      {"strategy", [](const Scenario& s) { return std::string(enum_name(s.sync.strategy)); }},
      {"algorithm", [](const Scenario& s) { return std::string(enum_name(s.sync.algorithm)); }},
      {"ps_servers", [](const Scenario& s) { return num(s.sync.ps.servers); }},
      {"ps_placement",
       [](const Scenario& s) { return std::string(enum_name(s.sync.ps.placement)); }},
      {"bucket_cap_bytes", [](const Scenario& s) { return num(s.sync.bucket_cap); }},
      {"overlap", [](const Scenario& s) { return flag(s.sync.overlap); }},
      {"schedule", [](const Scenario& s) { return std::string(enum_name(s.sync.schedule)); }},
      {"sharding",
       [](const Scenario& s) { return std::string(enum_name(s.sync.sharding.strategy)); }},
      {"activation_checkpointing",
       [](const Scenario& s) { return flag(s.training.activation_checkpointing); }},
      {"gradient_bytes", gradient_bytes_column},
      {"compute_mode", [](const Scenario& s) { return std::string(enum_name(s.compute.mode)); }},
      {"compute_efficiency", [](const Scenario& s) { return num(s.compute.efficiency); }},
      {"compute_profile", [](const Scenario& s) { return s.compute.profile; }},
      {"data_synthetic", [](const Scenario& s) { return flag(s.data.synthetic); }},
      {"data_sample_bytes", [](const Scenario& s) { return num(s.data.sample_bytes); }},
  };
  return columns;
}

const std::vector<ResultColumn>& result_columns() {
  using R = SimulationResult;
  static const std::vector<ResultColumn> columns = {
      {"global_batch", [](const R& r) { return num(r.global_batch); }},
      {"iteration_time_s", [](const R& r) { return num(r.iteration_time); }},
      {"samples_per_second", [](const R& r) { return num(r.samples_per_second); }},
      {"single_gpu_samples_per_second",
       [](const R& r) { return baseline(r, r.single_gpu_samples_per_second); }},
      {"scaling_efficiency", [](const R& r) { return baseline(r, r.scaling_efficiency); }},
      {"data_wait_s", [](const R& r) { return num(r.breakdown.data_wait); }},
      {"forward_s", [](const R& r) { return num(r.breakdown.forward); }},
      {"backward_s", [](const R& r) { return num(r.breakdown.backward); }},
      {"exposed_comm_s", [](const R& r) { return num(r.breakdown.exposed_comm); }},
      {"straggler_wait_s", [](const R& r) { return num(r.breakdown.straggler_wait); }},
      {"optimizer_s", [](const R& r) { return num(r.breakdown.optimizer); }},
      {"comm_time_s", [](const R& r) { return num(r.comm_time); }},
      {"comm_share", [](const R& r) { return num(r.comm_share); }},
      {"exposed_comm_share", [](const R& r) { return num(r.exposed_comm_share); }},
      {"straggler_share", [](const R& r) { return num(r.straggler_share); }},
      {"bottleneck", [](const R& r) { return r.bottleneck; }},
      {"data_rate_per_gpu", [](const R& r) { return num(r.data_rate_per_gpu); }},
      {"train_rate_per_gpu", [](const R& r) { return num(r.train_rate_per_gpu); }},
      // Transformers only (model_flops.h); empty for a model without attention.
      {"tokens_per_second", [](const R& r) { return llm(r, r.tokens_per_second()); }},
      {"tokens_per_second_per_gpu",
       [](const R& r) { return llm(r, r.tokens_per_second_per_gpu()); }},
      {"model_flops_per_token", [](const R& r) { return llm(r, r.model_flops_per_token); }},
      {"mfu", [](const R& r) { return llm(r, r.mfu()); }},
      {"hfu", [](const R& r) { return llm(r, r.hfu()); }},
      {"single_gpu_bottleneck", [](const R& r) { return r.single_gpu_bottleneck; }},
      {"memory_total_bytes", [](const R& r) { return num(r.memory.total); }},
      {"memory_capacity_bytes", [](const R& r) { return num(r.memory.capacity); }},
      {"memory_fits", [](const R& r) { return flag(r.memory.fits); }},
      {"buckets", [](const R& r) { return num(static_cast<int>(r.buckets.size())); }},
      {"bytes_intra_node", [](const R& r) { return num(r.bytes_per_link_class[0]); }},
      {"bytes_pcie", [](const R& r) { return num(r.bytes_per_link_class[1]); }},
      {"bytes_nic", [](const R& r) { return num(r.bytes_per_link_class[2]); }},
      {"bytes_fabric", [](const R& r) { return num(r.bytes_per_link_class[3]); }},
      {"bytes_storage", [](const R& r) { return num(r.bytes_per_link_class[4]); }},
      {"bytes_host", [](const R& r) { return num(r.bytes_per_link_class[5]); }},
      {"bytes_sent_per_step", [](const R& r) { return num(r.bytes_sent); }},
      {"notes",
       [](const R& r) {
         std::string notes = r.notes;
         for (const std::string& w : r.warnings) notes += "; warning: " + w;
         return notes;
       }},
  };
  return columns;
}

std::vector<std::string> leading_cells(const PointKey& point, const char* status) {
  std::vector<std::string> row = {std::to_string(point.index), point.id, status};
  row.insert(row.end(), point.swept_values.begin(), point.swept_values.end());
  return row;
}

bool needs_quotes(const std::string& field) {
  return field.find_first_of(",\"\r\n") != std::string::npos;
}

std::vector<std::string> band_cells(const ResultBands& b) {
  std::vector<std::string> cells;
  for (const Band* band : {&b.samples_per_second, &b.iteration_time, &b.exposed_comm_share})
    for (double v : {band->p10, band->p50, band->p90}) cells.push_back(num(v));
  cells.push_back(num(b.samples));
  return cells;
}

}  // namespace

const std::vector<std::string>& band_columns() {
  static const std::vector<std::string> columns = {
      "samples_per_second_p10", "samples_per_second_p50", "samples_per_second_p90",
      "iteration_time_s_p10",   "iteration_time_s_p50",   "iteration_time_s_p90",
      "exposed_comm_share_p10", "exposed_comm_share_p50", "exposed_comm_share_p90",
      "uncertainty_draws"};
  return columns;
}

std::vector<std::string> results_csv_header(const std::vector<std::string>& swept_keys,
                                            bool bands) {
  std::vector<std::string> header = {"point", "point_id", "status"};
  header.insert(header.end(), swept_keys.begin(), swept_keys.end());
  for (const auto& c : scenario_columns()) header.push_back(c.name);
  for (const auto& c : result_columns()) header.push_back(c.name);
  if (bands) header.insert(header.end(), band_columns().begin(), band_columns().end());
  for (const char* name : kProvenanceColumns) header.push_back(name);
  header.push_back("error");
  return header;
}

std::vector<std::string> results_csv_row(const PointKey& point, const Scenario& scenario,
                                         const SimulationResult& result,
                                         const Provenance& provenance, const ResultBands* bands) {
  std::vector<std::string> row = leading_cells(point, "ok");
  for (const auto& c : scenario_columns()) row.push_back(c.value(scenario));
  for (const auto& c : result_columns()) row.push_back(c.value(result));
  if (bands != nullptr) {
    const std::vector<std::string> cells = band_cells(*bands);
    row.insert(row.end(), cells.begin(), cells.end());
  }
  row.insert(row.end(), {provenance.version, provenance.commit, input_digests(provenance.inputs)});
  row.push_back("");
  return row;
}

std::vector<std::string> failed_csv_row(const PointKey& point, const Scenario& scenario,
                                        const std::string& error, bool bands) {
  std::vector<std::string> row = leading_cells(point, "failed");
  for (const auto& c : scenario_columns()) row.push_back(c.value(scenario));
  row.resize(row.size() + result_columns().size() + (bands ? band_columns().size() : 0));
  row.insert(row.end(), {ddpsim_version(), source_commit(), ""});
  row.push_back(error);
  return row;
}

int csv_column(const CsvTable& table, const std::string& name) {
  for (size_t i = 0; i < table.header.size(); ++i) {
    if (table.header[i] == name) return static_cast<int>(i);
  }
  return -1;
}

std::string format_csv(const CsvTable& table) {
  std::string out;
  auto line = [&out](const std::vector<std::string>& fields) {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (i) out += ',';
      if (!needs_quotes(fields[i])) {
        out += fields[i];
        continue;
      }
      out += '"';
      for (char c : fields[i]) {
        if (c == '"') out += '"';
        out += c;
      }
      out += '"';
    }
    out += '\n';
  };
  line(table.header);
  for (const auto& row : table.rows) line(row);
  return out;
}

CsvTable parse_csv(const std::string& text, const std::string& file_name) {
  CsvTable table;
  std::vector<std::vector<std::string>> records;
  std::vector<int> record_lines;  // where each record starts (quoted fields may span lines)
  std::vector<std::string> record;
  std::string field;
  bool quoted = false, field_started = false;
  int line = 1, record_line = 1;
  auto fail = [&](int at, const std::string& message) {
    throw InputError(SourceLocation{file_name, at, 0}, message);
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        field += c;
      }
    } else if (c == '"' && field.empty() && !field_started) {
      quoted = field_started = true;
    } else if (c == ',') {
      record.push_back(field);
      field.clear();
      field_started = false;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      record.push_back(field);
      field.clear();
      field_started = false;
      records.push_back(std::move(record));
      record_lines.push_back(record_line);
      record.clear();
      record_line = ++line;
    } else if (c == '"') {
      fail(line, "stray quote inside an unquoted CSV field");
    } else {
      field += c;
      field_started = true;
    }
  }
  if (quoted) fail(record_line, "unterminated quoted CSV field (the file ends inside it)");
  if (field_started || !record.empty())
    fail(record_line,
         "the last CSV row has no line end "
         "(the file was cut short)");
  if (records.empty()) fail(1, "empty CSV file: expected a header row");
  table.header = std::move(records.front());
  for (size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() != table.header.size()) {
      fail(record_lines[r], "row has " + std::to_string(records[r].size()) +
                                " fields, the header has " + std::to_string(table.header.size()));
    }
    table.rows.push_back(std::move(records[r]));
  }
  return table;
}

}  // namespace ddpsim
