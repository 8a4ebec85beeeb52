#include "sim/text/closest_name.h"

#include <algorithm>

namespace ddpsim {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string> closest_name(const std::string& name,
                                        const std::vector<std::string>& candidates) {
  if (candidates.empty()) return std::nullopt;
  auto closest = std::min_element(candidates.begin(), candidates.end(),
                                  [&](const std::string& a, const std::string& b) {
                                    return edit_distance(name, a) < edit_distance(name, b);
                                  });
  if (edit_distance(name, *closest) <= std::max<size_t>(2, name.size() / 3)) return *closest;
  return std::nullopt;
}

}  // namespace ddpsim
