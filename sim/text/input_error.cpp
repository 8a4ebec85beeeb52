#include "sim/text/input_error.h"

namespace ddpsim {

std::string SourceLocation::to_string() const {
  std::string out = file.empty() ? std::string("<input>") : file;
  if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(column);
  return out;
}

InputError::InputError(SourceLocation where, const std::string& message)
    : std::runtime_error(where.to_string() + ": " + message),
      where_(std::move(where)),
      message_(message) {}

InputError::InputError(const std::string& formatted)
    : std::runtime_error(formatted), message_(formatted) {}

}  // namespace ddpsim
