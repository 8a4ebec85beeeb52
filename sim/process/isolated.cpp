#include "sim/process/isolated.h"

#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "sim/text/input_error.h"
#include "sim/text/inputs_read.h"

namespace ddpsim {
namespace {

bool write_all(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

// The child's message: the files it read (inputs_read.h), then the payload:
//   <length of the list>\n<list><payload>
std::string child_message(const std::string& payload) {
  const std::string inputs = inputs_read_text();
  return std::to_string(inputs.size()) + "\n" + inputs + payload;
}

// Records the files the child read and returns its payload. A message cut short (the child was
// killed while writing) is returned whole, as the error text it then is.
std::string payload_of(const std::string& message) {
  const size_t newline = message.find('\n');
  if (newline == std::string::npos || newline == 0 || newline > 19 ||
      message.find_first_not_of("0123456789") != newline)
    return message;
  const size_t length = std::stoull(message.substr(0, newline));
  if (message.size() - newline - 1 < length) return message;
  try {
    record_inputs_text(message.substr(newline + 1, length));
  } catch (const std::exception&) {
    return message;
  }
  return message.substr(newline + 1 + length);
}

std::string read_all(int fd) {
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

}  // namespace

IsolatedResult run_isolated(const std::function<std::string()>& work) {
  IsolatedResult result;
  int fds[2];
  if (::pipe(fds) != 0) {
    result.exit_code = kExitFailure;
    result.payload = "pipe() failed";
    return result;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const auto started = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    result.exit_code = kExitFailure;
    result.payload = "fork() failed";
    return result;
  }
  if (pid == 0) {
    ::close(fds[0]);
    int code = kExitOk;
    std::string payload;
    try {
      payload = work();
    } catch (const InputError& e) {
      payload = e.what();
      code = kExitBadInput;
    } catch (const std::exception& e) {
      payload = e.what();
      code = kExitFailure;
    }
    write_all(fds[1], child_message(payload));
    ::close(fds[1]);
    std::fflush(stdout);
    std::fflush(stderr);
    ::_exit(code);  // skip atexit handlers: SimGrid's teardown is not needed in the child
  }
  ::close(fds[1]);
  result.payload = payload_of(read_all(fds[0]));
  ::close(fds[0]);
  int status = 0;
  struct rusage usage {};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  result.cpu_seconds = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 +
                       usage.ru_stime.tv_sec + usage.ru_stime.tv_usec * 1e-6;
  result.max_rss_kib = usage.ru_maxrss;
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.exit_code = 128 + WTERMSIG(status);
    if (result.payload.empty())
      result.payload = "simulation process killed by signal " + std::to_string(WTERMSIG(status));
  } else {
    result.exit_code = kExitFailure;
  }
  result.ok = result.exit_code == 0;
  return result;
}

}  // namespace ddpsim
