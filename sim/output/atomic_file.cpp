#include "sim/output/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "sim/text/input_error.h"
#include "sim/text/input_file.h"

namespace ddpsim {

void write_file_atomic(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  fs::path target(path);
  // Never rename over a device, a pipe or a folder (as root, /dev/null would be replaced).
  std::error_code ec;
  const fs::file_status existing = fs::symlink_status(target, ec);
  if (fs::exists(existing) && !fs::is_regular_file(existing) && !fs::is_symlink(existing)) {
    throw InputError({path, 0, 0}, "cannot write the file: it is " +
                                       special_file_kind(path).value_or("not a regular file") +
                                       ", not a regular file");
  }
  if (target.has_parent_path()) fs::create_directories(target.parent_path());
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(errno));
  size_t off = 0;
  while (off < content.size()) {
    ssize_t n = ::write(fd, content.data() + off, content.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(err));
    }
    off += static_cast<size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " + std::strerror(err));
  }
}

std::string read_file(const std::string& path) { return read_regular_file(path, "file"); }

}  // namespace ddpsim
