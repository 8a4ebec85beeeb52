#include "sim/validation/residual_file.h"

#include "sim/process/install_paths.h"
#include "sim/text/input_file.h"

namespace ddpsim {

std::string default_residual_file() {
  return scenarios_directory() + "/validation/discrepancy.csv";
}

std::vector<ResidualRow> read_residual_file(const std::string& path) {
  const std::string text =
      read_input_file(path, "model_error", "measured model error (discrepancy.csv)", 4 << 20);
  return parse_residual_rows(text, path);
}

}  // namespace ddpsim
