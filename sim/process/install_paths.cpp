#include "sim/process/install_paths.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace ddpsim {
namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

}  // namespace

std::string executable_directory() {
  std::vector<char> buf(4096);
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return ".";
  return std::filesystem::path(std::string(buf.data(), static_cast<size_t>(n)))
      .parent_path()
      .string();
}

std::string data_directory() {
  return env_or("DDPSIM_DATA_DIR",
                (std::filesystem::path(executable_directory()) / ".." / "share" / "ddpsim")
                    .lexically_normal()
                    .string());
}

std::string reports_directory() {
  return env_or("DDPSIM_REPORTS_DIR", data_directory() + "/reports");
}

std::string scenarios_directory() { return data_directory() + "/scenarios"; }

std::string pytorch_tools_directory() { return data_directory() + "/pytorch"; }

std::string python_interpreter() { return env_or("DDPSIM_PYTHON", "/usr/bin/python3"); }

}  // namespace ddpsim
