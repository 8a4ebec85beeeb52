// A fixed two-way table between an enum and the names it is spelled with (scenario keys, profile
// and model-file keys): one table of {value, name} rows serves writing and reading, so a name
// written is a name read. The scenario's enums (sim/scenario/enum_names.h) and the file formats'
// keys (layer kinds, collective ops) use the same row and the same two lookups.
#pragma once

#include <iterator>
#include <optional>
#include <string_view>

namespace ddpsim {

template <class E>
struct NamedValue {
  E value;
  const char* name;
};

// The name of `value` in `table` (an array or vector of NamedValue<E>), or `missing`.
template <class Table, class E>
const char* name_in(const Table& table, E value, const char* missing) {
  for (const auto& row : table)
    if (row.value == value) return row.name;
  return missing;
}

// The value spelled exactly `name` in `table`, or nullopt.
template <class Table>
auto value_named(const Table& table, std::string_view name)
    -> std::optional<decltype(std::begin(table)->value)> {
  for (const auto& row : table)
    if (name == row.name) return row.value;
  return std::nullopt;
}

}  // namespace ddpsim
