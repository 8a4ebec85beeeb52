#include "sim/util/yaml_document.h"

#include <vector>

namespace ddpsim {
namespace {

// Index of the first document after the first that holds anything, or 0.
size_t second_document(const std::vector<YAML::Node>& documents) {
  for (size_t i = 1; i < documents.size(); ++i)
    if (documents[i].IsDefined() && !documents[i].IsNull()) return i;
  return 0;
}

}  // namespace

YAML::Node load_one_document(const std::string& text, const std::string& file,
                             const std::string& what) {
  const std::vector<YAML::Node> documents = YAML::LoadAll(text);
  if (documents.empty()) return YAML::Node();
  if (const size_t extra = second_document(documents)) {
    const YAML::Mark mark = documents[extra].Mark();
    const SourceLocation where = mark.is_null()
                                     ? SourceLocation{file, 0, 0}
                                     : SourceLocation{file, mark.line + 1, mark.column + 1};
    throw InputError(where, "a second YAML document starts here (after '---'), but a " + what +
                                " holds one document; put each document in a file of its own");
  }
  return documents.front();
}

YAML::Node load_one_value(const std::string& text, const SourceLocation& where) {
  const std::vector<YAML::Node> documents = YAML::LoadAll(text);
  if (documents.empty()) return YAML::Node();
  if (second_document(documents)) {
    throw InputError(where,
                     "the value holds more than one YAML document (a line starting with "
                     "'---'); give one value, and quote it if '---' belongs to it");
  }
  return documents.front();
}

}  // namespace ddpsim
