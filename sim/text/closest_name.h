// "Did you mean ...?": the nearest of a list of names by edit distance, when near enough to be a
// typo (at most 2 edits, or a third of the name's length for long names). One rule for unknown
// keys, commands and values, so every suggestion reads the same.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ddpsim {

// Levenshtein distance: insertions, deletions and substitutions, each costing 1.
size_t edit_distance(const std::string& a, const std::string& b);

// The candidate nearest to `name`, if it is a plausible typo of it; the first on ties.
std::optional<std::string> closest_name(const std::string& name,
                                        const std::vector<std::string>& candidates);

}  // namespace ddpsim
