// Errors in user input (scenario, profile, log files). Every one carries where it
// happened so the CLI can print "file:line:column: message" and exit with code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace ddpsim {

// 1-based line and column; 0 means "unknown" (e.g. a value given with --set).
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;

  std::string to_string() const;  // "file:line:column", or "file" / "<--set>" when unknown
};

class InputError : public std::runtime_error {
 public:
  InputError(SourceLocation where, const std::string& message);
  // An already formatted "file:line:column: message" (e.g. carried out of a child process).
  explicit InputError(const std::string& formatted);

  const SourceLocation& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string message_;
};

// Exit codes shared by every command.
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;   // internal error or a failed check (validate, bench)
constexpr int kExitBadInput = 2;  // the user's input is wrong; message says where and why
constexpr int kExitNoGpu = 3;     // calibrate: no CUDA device present

}  // namespace ddpsim
