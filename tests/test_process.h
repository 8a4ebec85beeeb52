// For the tests that run real programs (the ddpsim binary, the report scripts): a scratch folder
// per test process, whole-file reads, and a child process with its stdout and stderr in files.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace ddpsim::testing {

namespace fs = std::filesystem;

inline std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The records of a data file: comma-separated fields, '#' comment lines and the header skipped.
inline std::vector<std::vector<std::string>> csv_records(const fs::path& path) {
  std::istringstream csv(read_text(path));
  std::vector<std::vector<std::string>> records;
  bool header = true;
  for (std::string line; std::getline(csv, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> fields;
    std::istringstream in(line);
    for (std::string f; std::getline(in, f, ',');) fields.push_back(f);
    records.push_back(fields);
  }
  return records;
}

// <temp>/<prefix>-<pid>, removed at the end of the run when every test passed (kept for a look
// otherwise). Declare one at namespace scope: it registers its clean-up before main runs.
class ScratchFolder {
 public:
  explicit ScratchFolder(const std::string& prefix)
      : root_(fs::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()))) {
    ::testing::AddGlobalTestEnvironment(new Cleanup(root_));
  }

  const fs::path& root() const {
    fs::create_directories(root_);
    return root_;
  }

  // An empty folder `name` inside the root (emptied if an earlier test left one).
  fs::path fresh(const std::string& name) const {
    const fs::path dir = root_ / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
  }

 private:
  class Cleanup : public ::testing::Environment {
   public:
    explicit Cleanup(fs::path root) : root_(std::move(root)) {}
    void TearDown() override {
      if (::testing::UnitTest::GetInstance()->Passed()) fs::remove_all(root_);
    }

   private:
    fs::path root_;
  };
  fs::path root_;
};

struct Exited {
  int exit_code = -1;
  std::string out, err;
};

// Starts args[0] (a path) with stdout and stderr written to the files `out` and `err`, in this
// environment (less SLURM_* variables, which would make ddpsim shard its sweeps) plus `extra_env`.
inline pid_t spawn(const std::vector<std::string>& args, const std::string& out,
                   const std::string& err, const std::vector<std::string>& extra_env = {}) {
  std::vector<std::string> all = args;
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env = extra_env;
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("SLURM_", 0) != 0) env.push_back(*e);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, all[0].c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(rc, 0) << "cannot start " << all[0];
  return rc == 0 ? pid : -1;
}

// Waits for a spawned child; the exit code is 128 + the signal when a signal ended it.
inline Exited wait_for(pid_t pid, const std::string& out, const std::string& err) {
  Exited run;
  if (pid <= 0) return run;
  int status = 0;
  waitpid(pid, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.out = read_text(out);
  run.err = read_text(err);
  return run;
}

// Runs a program to its end, its output kept in `folder`/stdout.txt and stderr.txt.
inline Exited run_program(const std::vector<std::string>& args, const ScratchFolder& folder,
                          const std::vector<std::string>& extra_env = {}) {
  const std::string out = (folder.root() / "stdout.txt").string();
  const std::string err = (folder.root() / "stderr.txt").string();
  return wait_for(spawn(args, out, err, extra_env), out, err);
}

// Runs `command` with /bin/sh, its stdout and stderr kept apart (in files of `folder`).
inline Exited run_shell_captured(const std::string& command, const ScratchFolder& folder) {
  return run_program({"/bin/sh", "-c", command}, folder);
}

struct ShellRun {
  int code = -1;       // exit status; -1 when a signal ended it
  std::string output;  // stdout and stderr together
};

// Runs `command` with /bin/sh, its stderr merged into its stdout.
inline ShellRun run_shell(const std::string& command) {
  ShellRun r;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
  const int status = ::pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// How many times longer the binary may take in this build than in the normal one: ASan's checks
// make ddpsim 3 to 6 times slower (a 20,000-point sweep refused in 22 s, 116 s under ASan, on a
// 2-core VM, 2026-11-29). Limits that catch a hang or a quadratic reading scale with it; what
// they compare stays the same.
#ifdef DDPSIM_SANITIZED
inline constexpr double kBuildSlowdown = 6;
#else
inline constexpr double kBuildSlowdown = 1;
#endif

// Under AddressSanitizer, an exception thrown after SimGrid switched contexts (an error found
// once the run ended) makes ASan print a three-line warning that it lost track of the stack
// (google/sanitizers#189): not ddpsim's output, so tests drop it before comparing stderr.
inline std::string without_sanitizer_warning(std::string err) {
#ifdef DDPSIM_SANITIZED
  const std::string last = "For details see https://github.com/google/sanitizers/issues/189\n";
  const size_t begin = err.find("WARNING: ASan is ignoring requested __asan_handle_no_return");
  const size_t end = err.find(last);
  if (begin != std::string::npos && end != std::string::npos && end > begin) {
    const size_t line = err.rfind('\n', begin);
    const size_t from = line == std::string::npos ? 0 : line + 1;
    err.erase(from, end + last.size() - from);
  }
#endif
  return err;
}

}  // namespace ddpsim::testing
