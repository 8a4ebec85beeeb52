#include "sim/cli/timed_command.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>

#include "sim/process/install_paths.h"
#include "sim/text/input_error.h"

extern char** environ;

namespace ddpsim::cli {

double load_average() {
  std::FILE* f = std::fopen("/proc/loadavg", "r");
  if (f == nullptr) return 0;
  double load = 0;
  if (std::fscanf(f, "%lf", &load) != 1) load = 0;
  std::fclose(f);
  return load;
}

TimedCommand run_self_timed(const std::vector<std::string>& args, const std::string& log) {
  const std::string self = executable_directory() + "/ddpsim";
  std::vector<std::string> all = {self};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&files, STDOUT_FILENO, STDERR_FILENO);
  TimedCommand t;
  t.load_before = load_average();
  const auto started = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, self.c_str(), &files, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  if (spawned != 0) {
    t.exit_code = kExitFailure;
    return t;
  }
  int status = 0;
  struct rusage usage {};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  t.load_after = load_average();
  // The children a command waited for (its draws, its points) are counted in its own usage;
  // ru_maxrss is the largest of them (Linux: KiB).
  t.cpu = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 + usage.ru_stime.tv_sec +
          usage.ru_stime.tv_usec * 1e-6;
  t.peak_rss_kib = static_cast<double>(usage.ru_maxrss);
  t.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return t;
}

std::string last_line_of(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return "";
  std::string text, line;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, f)) {
    line = buf;
    if (!line.empty() && line.back() == '\n') line.pop_back();
    // A progress line rewritten in place keeps only its last state.
    const size_t cr = line.rfind('\r');
    if (cr != std::string::npos) line = line.substr(cr + 1);
    if (!line.empty()) text = line;
  }
  std::fclose(f);
  return text;
}

}  // namespace ddpsim::cli
