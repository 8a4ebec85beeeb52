#include "sim/process/build_info.h"

namespace ddpsim {

std::string version_line() {
  return std::string("ddpsim ") + ddpsim_version() + " (commit " + source_commit() + ")";
}

}  // namespace ddpsim
