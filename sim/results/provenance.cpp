#include "sim/results/provenance.h"

#include "sim/process/build_info.h"
#include "sim/text/input_error.h"
#include "sim/text/input_file.h"
#include "sim/text/sha256.h"

namespace ddpsim {

Provenance current_provenance() { return {ddpsim_version(), source_commit(), inputs_read()}; }

nlohmann::json provenance_to_json(const Provenance& p) {
  nlohmann::json inputs = nlohmann::json::array();
  for (const InputRecord& r : p.inputs)
    inputs.push_back(
        {{"role", r.role}, {"path", r.path}, {"bytes", r.bytes}, {"sha256", r.sha256}});
  return {{"ddpsim_version", p.version}, {"source_commit", p.commit}, {"inputs", inputs}};
}

Provenance provenance_from_json(const nlohmann::json& j) {
  Provenance p;
  p.version = j.at("ddpsim_version").get<std::string>();
  p.commit = j.at("source_commit").get<std::string>();
  for (const nlohmann::json& r : j.at("inputs"))
    p.inputs.push_back({r.at("role").get<std::string>(), r.at("path").get<std::string>(),
                        r.at("bytes").get<uint64_t>(), r.at("sha256").get<std::string>()});
  return p;
}

std::string CurrentFiles::change(const InputRecord& input) {
  auto it = state_.find(input.path);
  if (it == state_.end()) {
    std::string state;
    try {
      const std::string content = read_regular_file(input.path, input.role);
      state = std::to_string(content.size()) + " " + sha256_hex(content);
    } catch (const InputError& e) {
      state = "!" + e.message();
    }
    it = state_.emplace(input.path, state).first;
  }
  const std::string& now = it->second;
  if (now[0] == '!')
    return input.role + " " + input.path + " can no longer be read: " + now.substr(1);
  if (now != std::to_string(input.bytes) + " " + input.sha256)
    return input.role + " " + input.path + " changed since";
  return "";
}

std::string provenance_change(const Provenance& recorded, CurrentFiles* files) {
  if (recorded.version.empty()) return "computed by a ddpsim that recorded no version";
  if (recorded.version != ddpsim_version() || recorded.commit != source_commit()) {
    return "computed by ddpsim " + recorded.version + " (commit " + recorded.commit +
           "), this is " + version_line();
  }
  for (const InputRecord& r : recorded.inputs) {
    const std::string change = files->change(r);
    if (!change.empty()) return change;
  }
  return "";
}

std::string input_digests(const std::vector<InputRecord>& inputs) {
  std::string cell;
  for (const InputRecord& r : inputs) cell += (cell.empty() ? "" : ";") + r.role + "=" + r.sha256;
  return cell;
}

}  // namespace ddpsim
