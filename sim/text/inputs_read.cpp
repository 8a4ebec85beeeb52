#include "sim/text/inputs_read.h"

#include <nlohmann/json.hpp>

#include "sim/text/sha256.h"

namespace ddpsim {
namespace {

std::vector<InputRecord>& registry() {
  static std::vector<InputRecord> records;
  return records;
}

}  // namespace

void record_input(const InputRecord& record) {
  for (InputRecord& r : registry()) {
    if (r.path == record.path) {
      r = record;
      return;
    }
  }
  registry().push_back(record);
}

void record_input(const std::string& role, const std::string& path, std::string_view content) {
  record_input(InputRecord{role, path, content.size(), sha256_hex(content)});
}

const std::vector<InputRecord>& inputs_read() { return registry(); }

void set_inputs_read(std::vector<InputRecord> records) { registry() = std::move(records); }

std::string inputs_read_text() {
  nlohmann::json list = nlohmann::json::array();
  for (const InputRecord& r : registry()) list.push_back({r.role, r.path, r.bytes, r.sha256});
  return list.dump();
}

void record_inputs_text(const std::string& text) {
  for (const nlohmann::json& r : nlohmann::json::parse(text))
    record_input(InputRecord{r.at(0).get<std::string>(), r.at(1).get<std::string>(),
                             r.at(2).get<uint64_t>(), r.at(3).get<std::string>()});
}

}  // namespace ddpsim
