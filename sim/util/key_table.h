// A fixed two-way table between an enum and the key files spell it with (profiles, model files):
// one array of {value, key} pairs serves writing and reading, so a key written is a key read.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>

namespace ddpsim {

template <class E>
using KeyRow = std::pair<E, const char*>;

// The key of `value`, or "unknown" for a value the table lacks.
template <class E, std::size_t N>
const char* key_of(const KeyRow<E> (&table)[N], E value) {
  for (const auto& [v, key] : table)
    if (v == value) return key;
  return "unknown";
}

// The value spelled `key`, or nullopt.
template <class E, std::size_t N>
std::optional<E> value_of(const KeyRow<E> (&table)[N], const std::string& key) {
  for (const auto& [v, k] : table)
    if (key == k) return v;
  return std::nullopt;
}

}  // namespace ddpsim
