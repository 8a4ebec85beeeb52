// The YAML spelling of every scenario enum. One table per enum serves both directions, so the
// names printed in results and messages are exactly the ones the loader accepts.
#pragma once

#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "sim/scenario/scenario.h"
#include "sim/text/named_values.h"

namespace ddpsim {

// Specialised in enum_names.cpp for every enum of scenario.h.
template <class E>
const std::vector<NamedValue<E>>& enum_table();

// Other spellings users write for some values (`adamw`, `bfloat16`, `half`), matched ignoring
// case; an enum without a specialisation below has none. Results always print enum_table's name.
template <class E>
const std::vector<NamedValue<E>>& enum_aliases() {
  static const std::vector<NamedValue<E>> none;
  return none;
}
template <>
const std::vector<NamedValue<Precision>>& enum_aliases<Precision>();
template <>
const std::vector<NamedValue<Optimizer>>& enum_aliases<Optimizer>();
template <>
const std::vector<NamedValue<Sharding>>& enum_aliases<Sharding>();

template <class E>
const char* enum_name(E value) {
  return name_in(enum_table<E>(), value, "?");
}

template <class E>
std::optional<E> enum_from_name(std::string_view name) {
  if (auto exact = value_named(enum_table<E>(), name)) return exact;
  const auto& aliases = enum_aliases<E>();
  if (aliases.empty()) return std::nullopt;
  auto same = [&](const char* spelling) {
    const std::string_view s(spelling);
    if (s.size() != name.size()) return false;
    for (size_t i = 0; i < s.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(s[i])) !=
          std::tolower(static_cast<unsigned char>(name[i])))
        return false;
    return true;
  };
  for (const auto& entry : enum_table<E>())
    if (same(entry.name)) return entry.value;
  for (const auto& entry : aliases)
    if (same(entry.name)) return entry.value;
  return std::nullopt;
}

// "fp32, tf32, fp16, bf16": the allowed values, for error messages and docs; `except` leaves one
// out (the value a message is refusing).
template <class E>
std::string enum_choices(std::optional<E> except = std::nullopt) {
  std::string out;
  for (const auto& entry : enum_table<E>()) {
    if (except && entry.value == *except) continue;
    if (!out.empty()) out += ", ";
    out += entry.name;
  }
  return out;
}

template <>
const std::vector<NamedValue<IntraNodeKind>>& enum_table<IntraNodeKind>();
template <>
const std::vector<NamedValue<CpuVendor>>& enum_table<CpuVendor>();
template <>
const std::vector<NamedValue<NicTransport>>& enum_table<NicTransport>();
template <>
const std::vector<NamedValue<LatencyModel>>& enum_table<LatencyModel>();
template <>
const std::vector<NamedValue<NcclProtocol>>& enum_table<NcclProtocol>();
template <>
const std::vector<NamedValue<FabricKind>>& enum_table<FabricKind>();
template <>
const std::vector<NamedValue<Precision>>& enum_table<Precision>();
template <>
const std::vector<NamedValue<Optimizer>>& enum_table<Optimizer>();
template <>
const std::vector<NamedValue<SyncStrategy>>& enum_table<SyncStrategy>();
template <>
const std::vector<NamedValue<AllReduceAlgorithm>>& enum_table<AllReduceAlgorithm>();
template <>
const std::vector<NamedValue<CollectiveMode>>& enum_table<CollectiveMode>();
template <>
const std::vector<NamedValue<SimulationScope>>& enum_table<SimulationScope>();
template <>
const std::vector<NamedValue<PsPlacement>>& enum_table<PsPlacement>();
template <>
const std::vector<NamedValue<PsMode>>& enum_table<PsMode>();
template <>
const std::vector<NamedValue<KeyPlacement>>& enum_table<KeyPlacement>();
template <>
const std::vector<NamedValue<PsUpdate>>& enum_table<PsUpdate>();
template <>
const std::vector<NamedValue<PsPull>>& enum_table<PsPull>();
template <>
const std::vector<NamedValue<CommSchedule>>& enum_table<CommSchedule>();
template <>
const std::vector<NamedValue<Sharding>>& enum_table<Sharding>();
template <>
const std::vector<NamedValue<BackwardPrefetch>>& enum_table<BackwardPrefetch>();
template <>
const std::vector<NamedValue<ComputeMode>>& enum_table<ComputeMode>();
template <>
const std::vector<NamedValue<Attention>>& enum_table<Attention>();
template <>
const std::vector<NamedValue<StorageKind>>& enum_table<StorageKind>();
template <>
const std::vector<NamedValue<DecodeKind>>& enum_table<DecodeKind>();
template <>
const std::vector<NamedValue<StragglerKind>>& enum_table<StragglerKind>();

// " (also adamw)": an optimizer the loader takes under its own name, for the unknown-value
// message. Precision's aliases are only other spellings of the names listed (bfloat16 = bf16).
template <class E>
std::string enum_alias_note() {
  if constexpr (!std::is_same_v<E, Optimizer>) return "";
  std::string out;
  for (const auto& entry : enum_aliases<E>())
    out += (out.empty() ? "" : ", ") + std::string(entry.name);
  return out.empty() ? out : " (also " + out + ")";
}

}  // namespace ddpsim
