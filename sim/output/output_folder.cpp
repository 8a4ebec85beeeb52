#include "sim/output/output_folder.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "sim/text/input_error.h"
#include "sim/text/input_file.h"

namespace ddpsim {
namespace {

namespace fs = std::filesystem;

// Whether a file can be created in `folder` (access(W_OK) says yes to root on a read-only file
// system, and /proc refuses what its mode bits allow): creates one and removes it. "" or why not.
std::string cannot_create_in(const fs::path& folder) {
  const std::string probe =
      (folder / (".ddpsim-write-test." + std::to_string(::getpid()))).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

}  // namespace

void check_output_file(const std::string& path, const std::string& option) {
  const SourceLocation where{path.empty() ? "<" + option + ">" : path, 0, 0};
  if (path.empty()) throw InputError(where, "an empty file name");
  if (const auto kind = special_file_kind(path)) {
    throw InputError(
        where, "cannot write the file (" + option + "): it is " + *kind + ", not a regular file");
  }
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) check_output_folder(parent.string(), option);
}

void check_output_folder(const std::string& dir, const std::string& option) {
  const SourceLocation where{dir.empty() ? "<" + option + ">" : dir, 0, 0};
  if (dir.empty()) throw InputError(where, "an empty output folder name");
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (fs::exists(status)) {
    if (!fs::is_directory(status)) {
      const auto kind = special_file_kind(dir);
      throw InputError(where, "cannot write results here (" + option + "): it is " +
                                  (kind ? *kind : std::string("a file")) +
                                  ", not a folder; give a folder");
    }
    if (const std::string why = cannot_create_in(dir); !why.empty())
      throw InputError(where, "cannot write in the output folder (" + option + "): " + why);
    return;
  }
  // Missing: the nearest folder that exists must be one, and take the new folder.
  fs::path ancestor = fs::path(dir).parent_path();
  while (!ancestor.empty() && !fs::exists(fs::symlink_status(ancestor, ec)))
    ancestor = ancestor.parent_path();
  if (ancestor.empty()) ancestor = ".";
  if (!fs::is_directory(ancestor, ec)) {
    throw InputError(where, "cannot create the output folder (" + option +
                                "): " + ancestor.string() + " is a file, not a folder");
  }
  if (const std::string why = cannot_create_in(ancestor); !why.empty()) {
    throw InputError(where, "cannot create the output folder (" + option + ") in " +
                                ancestor.string() + ": " + why);
  }
}

}  // namespace ddpsim
