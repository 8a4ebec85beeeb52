#include "sim/text/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "sim/text/input_error.h"
#include "sim/text/inputs_read.h"
#include "sim/text/units.h"

namespace ddpsim {
namespace {

std::optional<std::string> kind_of(mode_t mode) {
  if (S_ISREG(mode)) return std::nullopt;
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a named pipe (FIFO)";
  if (S_ISCHR(mode)) return "a character device (like /dev/null, /dev/zero or a terminal)";
  if (S_ISBLK(mode)) return "a block device (a disk)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

[[noreturn]] void refuse(const std::string& path, const std::string& what, const std::string& why) {
  throw InputError(SourceLocation{path, 0, 0}, "cannot read the " + what + ": " + why);
}

[[noreturn]] void refuse_kind(const std::string& path, const std::string& what,
                              const std::string& kind) {
  refuse(path, what, "it is " + kind + ", not a regular file");
}

[[noreturn]] void refuse_size(const std::string& path, const std::string& what, uint64_t size,
                              uint64_t max_bytes, bool at_least) {
  refuse(path, what,
         std::string("it is ") + (at_least ? "more than " : "") +
             units::format_bytes(static_cast<double>(size)) + ", above the " +
             units::format_bytes(static_cast<double>(max_bytes)) +
             " limit for it (is this the right file?)");
}

}  // namespace

std::optional<std::string> special_file_kind(const std::string& path) {
  struct stat st {};
  if (path.find('\0') != std::string::npos || ::stat(path.c_str(), &st) != 0) return std::nullopt;
  return kind_of(st.st_mode);
}

namespace {

// Opens the regular file at `path` for reading, or refuses it as read_regular_file says; returns
// the descriptor and its size by fstat (0 when the size says nothing, as in /proc).
int open_regular_file(const std::string& path, const std::string& what, uint64_t max_bytes,
                      off_t* size) {
  if (path.empty()) refuse("<empty path>", what, "no path was given");
  if (path.find('\0') != std::string::npos) refuse(path, what, "the path contains a NUL byte");
  // O_NONBLOCK: opening a named pipe must not wait for a writer (it is refused just below).
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (auto kind = special_file_kind(path)) refuse_kind(path, what, *kind);  // e.g. a socket
    refuse(path, what, std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    refuse(path, what, std::strerror(err));
  }
  if (auto kind = kind_of(st.st_mode)) {
    ::close(fd);
    refuse_kind(path, what, *kind);
  }
  if (st.st_size >= 0 && static_cast<uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    refuse_size(path, what, static_cast<uint64_t>(st.st_size), max_bytes, false);
  }
  *size = st.st_size;
  return fd;
}

}  // namespace

RegularFileReader::RegularFileReader(const std::string& path, const std::string& what,
                                     uint64_t max_bytes)
    : path_(path), what_(what), max_bytes_(max_bytes), buffer_(size_t{1} << 20) {
  off_t size = 0;
  fd_ = open_regular_file(path, what, max_bytes, &size);
  setg(buffer_.data(), buffer_.data(), buffer_.data());
}

RegularFileReader::~RegularFileReader() {
  if (fd_ >= 0) ::close(fd_);
}

RegularFileReader::int_type RegularFileReader::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  ssize_t n = 0;
  do {
    n = ::read(fd_, buffer_.data(), buffer_.size());
  } while (n < 0 && errno == EINTR);
  if (n < 0) refuse(path_, what_, std::strerror(errno));
  if (n == 0) return traits_type::eof();
  read_ += static_cast<uint64_t>(n);
  // A file that grows while read (or whose size said nothing) stops past the limit.
  if (read_ > max_bytes_) refuse_size(path_, what_, max_bytes_, max_bytes_, true);
  setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
  return traits_type::to_int_type(*gptr());
}

std::string read_regular_file(const std::string& path, const std::string& what,
                              uint64_t max_bytes) {
  off_t size = 0;
  const int fd = open_regular_file(path, what, max_bytes, &size);
  // Files whose size says nothing (/proc) or that grow while read stop one byte past the limit.
  std::string content;
  content.resize(static_cast<size_t>(size > 0 ? size : 0));
  size_t used = 0;
  for (;;) {
    if (used == content.size()) {
      if (used > max_bytes) {
        ::close(fd);
        refuse_size(path, what, max_bytes, max_bytes, true);
      }
      content.resize(std::min<uint64_t>(max_bytes + 1, std::max<uint64_t>(2 * used, 65536)));
    }
    const ssize_t n = ::read(fd, content.data() + used, content.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      refuse(path, what, std::strerror(err));
    }
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  ::close(fd);
  content.resize(used);
  return content;
}

std::string read_input_file(const std::string& path, const std::string& role,
                            const std::string& what, uint64_t max_bytes) {
  std::string content = read_regular_file(path, what, max_bytes);
  record_input(role, path, content);
  return content;
}

}  // namespace ddpsim
