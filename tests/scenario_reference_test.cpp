// docs/scenario-reference.md against the loader's own key tables: every key the loader allows
// has a row in its section's table, every section (a key whose value is a mapping of keys) has a
// heading, and every row names a key the loader allows. The allowed keys are not copied here:
// the test asks the loader, by overriding `<section>.zz_probe` on the default scenario and
// reading the "unknown key ...; allowed keys: a, b" message the loader gives for it, then
// probing each allowed key the same way to find the sections inside it. A key added to a
// parse_*.cpp without its row fails with the key and the section named.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/input/scenario_loader.h"
#include "sim/text/input_error.h"
#include "tests/test_process.h"

namespace {

namespace fs = std::filesystem;

const fs::path kSource = DDPSIM_SOURCE_DIR;
const fs::path kReference = kSource / "docs" / "scenario-reference.md";
const std::string kScenario = (kSource / "scenarios" / "default.yaml").string();
constexpr const char* kProbe = "zz_probe";

// Keys whose value is read by another command and holds free-form keys (sweep: any key path)
// or is checked by `ddpsim validate` (validation), not by the simulation's loader.
const std::set<std::string> kNotProbed = {"sweep", "validation"};

// The keys the loader allows in `section` ("" = the top level), or nothing when `section` is not
// a mapping of named keys (a scalar, a list, or a section that takes any key).
std::optional<std::vector<std::string>> allowed_keys(const std::string& section) {
  const std::string path = section.empty() ? kProbe : section + "." + kProbe;
  try {
    ddpsim::load_scenario(kScenario, {path + "=1"});
  } catch (const std::exception& e) {
    const std::string message = e.what();
    const std::string marker = "unknown key '" + std::string(kProbe) + "' in ";
    const std::size_t at = message.find(marker);
    const std::size_t list = message.find("; allowed keys: ", at);
    if (at == std::string::npos || list == std::string::npos) return std::nullopt;
    std::string keys = message.substr(list + std::string("; allowed keys: ").size());
    keys = keys.substr(0, keys.find(" (did you mean"));
    std::vector<std::string> out;
    std::istringstream in(keys);
    for (std::string key; std::getline(in, key, ',');) {
      key.erase(0, key.find_first_not_of(' '));
      key.erase(key.find_last_not_of(" \n") + 1);
      if (!key.empty()) out.push_back(key);
    }
    return out;
  }
  return std::nullopt;  // accepted: a section of free-form keys
}

// Every section the loader knows, with its keys, from the top level down.
std::map<std::string, std::vector<std::string>> loader_sections() {
  std::map<std::string, std::vector<std::string>> sections;
  std::vector<std::string> todo = {""};
  while (!todo.empty()) {
    const std::string section = todo.back();
    todo.pop_back();
    auto keys = allowed_keys(section);
    if (!keys) continue;
    sections[section] = *keys;
    for (const std::string& key : *keys) {
      const std::string child = section.empty() ? key : section + "." + key;
      if (!kNotProbed.count(child)) todo.push_back(child);
    }
  }
  return sections;
}

// The reference's tables: for each `## \`section\`` heading (and "## Top level"), the keys of
// its table rows (`| \`key\` | ...`). A row `a.b` in section s documents key a of s and key b of
// the section s.a (how small sub-sections such as `sync.local_sgd.period` are written).
std::map<std::string, std::set<std::string>> reference_rows() {
  std::map<std::string, std::set<std::string>> rows;
  std::istringstream text(ddpsim::testing::read_text(kReference));
  static const std::regex heading(R"(^## (?:`([a-z_.]+)`.*|Top level)\s*$)");
  static const std::regex row(R"(^\| `([a-z_0-9.]+)` \|)");
  std::optional<std::string> section;
  for (std::string line; std::getline(text, line);) {
    std::smatch m;
    if (line.rfind("## ", 0) == 0) {
      section.reset();
      if (std::regex_match(line, m, heading)) section = m[1].matched ? m[1].str() : "";
      if (section) rows[*section];
      continue;
    }
    if (!section || !std::regex_search(line, m, row)) continue;
    std::string owner = *section, key = m[1];
    for (std::size_t dot; (dot = key.find('.')) != std::string::npos; key.erase(0, dot + 1)) {
      rows[owner].insert(key.substr(0, dot));
      owner = owner.empty() ? key.substr(0, dot) : owner + "." + key.substr(0, dot);
    }
    rows[owner].insert(key);
  }
  return rows;
}

std::string shown(const std::string& section) {
  return section.empty() ? "the top level (\"## Top level\")" : "`" + section + "`";
}

TEST(ScenarioReference, EveryKeyTheLoaderAllowsHasARow) {
  const auto sections = loader_sections();
  const auto rows = reference_rows();
  ASSERT_GE(sections.size(), 15u) << "the probe found too few sections: is the message format "
                                     "\"unknown key 'K' in S; allowed keys: ...\" unchanged?";
  for (const auto& [section, keys] : sections) {
    auto table = rows.find(section);
    if (table == rows.end()) {
      ADD_FAILURE() << kReference << ": no section for " << shown(section)
                    << ", which the loader reads with keys " << ::testing::PrintToString(keys)
                    << ": add a heading \"## `" << section << "`\" with a row per key";
      continue;
    }
    for (const std::string& key : keys) {
      EXPECT_TRUE(table->second.count(key))
          << kReference << ": key `" << key << "` of " << shown(section)
          << " has no row (the loader allows it): add \"| `" << key
          << "` | type | default | meaning |\" to that section's table";
    }
  }
}

TEST(ScenarioReference, EveryRowNamesAKeyTheLoaderAllows) {
  const auto sections = loader_sections();
  for (const auto& [section, keys] : reference_rows()) {
    auto loader = sections.find(section);
    if (loader == sections.end()) {
      // A heading for a section the loader does not read as named keys (none today).
      ADD_FAILURE() << kReference << ": section " << shown(section)
                    << " is not a section the loader reads";
      continue;
    }
    const std::set<std::string> allowed(loader->second.begin(), loader->second.end());
    for (const std::string& key : keys) {
      EXPECT_TRUE(allowed.count(key)) << kReference << ": row `" << key << "` of " << shown(section)
                                      << " names a key the loader refuses";
    }
  }
}

}  // namespace
