#include "sim/process/python_script.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "sim/text/input_error.h"

namespace ddpsim {

int run_python(const std::string& script, const std::vector<std::string>& args) {
  const std::string python = python_interpreter();
  std::vector<std::string> all = {python, script};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork() failed: ") + std::strerror(errno));
  if (pid == 0) {
    ::execv(python.c_str(), argv.data());
    std::fprintf(stderr, "error: cannot run %s: %s\n", python.c_str(), std::strerror(errno));
    ::_exit(kExitFailure);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : kExitFailure;
}

}  // namespace ddpsim
