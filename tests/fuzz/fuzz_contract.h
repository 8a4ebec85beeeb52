// The contract every fuzz target checks: a reader given arbitrary bytes either accepts them or
// throws InputError (the CLI's exit 2 with file:line:column). Any other exception, a crash, a
// sanitizer report, or an accepted input that yields a non-finite number is a finding; the
// target aborts so libFuzzer saves the input (tests/fuzz/README in docs/reliability.md).
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/text/input_error.h"

namespace ddpsim::fuzz {

// What a finding does: under libFuzzer, print and abort (the input is saved); the regression
// test (tests/fuzz_regressions_test.cpp) throws FuzzFinding instead, to fail one test.
struct FuzzFinding {
  std::string what;
};
inline std::function<void(const std::string&)>& finding_handler() {
  static std::function<void(const std::string&)> handler = [](const std::string& what) {
    std::fprintf(stderr, "FUZZ FINDING: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
  };
  return handler;
}

[[noreturn]] inline void finding(const std::string& what) {
  finding_handler()(what);
  std::abort();
}

// Runs `body`; InputError is the accepted way to refuse input, anything else is a finding.
template <class F>
void expect_only_input_errors(F&& body) {
  try {
    body();
  } catch (const FuzzFinding&) {
    throw;
  } catch (const InputError& e) {
    // A refusal must say where and why.
    if (e.message().empty()) finding("InputError without a message");
  } catch (const std::exception& e) {
    finding(std::string("exception other than InputError: ") + e.what());
  } catch (...) {
    finding("non-standard exception");
  }
}

inline void expect_finite(double v, const std::string& what) {
  if (!std::isfinite(v)) finding("non-finite " + what);
}

// Every number in a JSON document is finite (nlohmann stores NaN/inf as numbers silently).
inline void expect_finite_json(const nlohmann::json& j, const std::string& path = "") {
  if (j.is_number_float()) {
    expect_finite(j.get<double>(), path);
  } else if (j.is_object()) {
    for (const auto& [key, value] : j.items()) expect_finite_json(value, path + "." + key);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i)
      expect_finite_json(j[i], path + "[" + std::to_string(i) + "]");
  }
}

}  // namespace ddpsim::fuzz
