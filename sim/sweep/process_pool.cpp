#include "sim/sweep/process_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <thread>

#include "sim/text/input_error.h"

namespace ddpsim {
namespace {

using Clock = std::chrono::steady_clock;

struct Running {
  size_t task;
  pid_t pid;
  int error_fd;  // read end of the child's error pipe
  Clock::time_point started;
};

constexpr size_t kMaxErrorBytes = 4096;  // fits the pipe buffer, so the child never blocks

[[noreturn]] void child_main(size_t task, int error_fd, pid_t parent, const PoolOptions& options,
                             const std::function<void(size_t)>& work) {
  ::setpgid(0, 0);  // its own group: stopping the sweep stops the simulations it started too
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(128 + SIGKILL);  // the parent died before prctl
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  for (int fd : options.close_in_child) ::close(fd);
  int code = kExitOk;
  std::string error;
  try {
    work(task);
  } catch (const InputError& e) {
    error = e.what();
    code = kExitBadInput;
  } catch (const std::exception& e) {
    error = e.what();
    code = kExitFailure;
  }
  if (!error.empty()) {
    error.resize(std::min(error.size(), kMaxErrorBytes));
    [[maybe_unused]] ssize_t n = ::write(error_fd, error.data(), error.size());
  }
  std::fflush(stdout);
  std::fflush(stderr);
  ::_exit(code);  // skip atexit handlers and static destructors of the parent's state
}

std::string drain(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

Running launch(size_t task, const PoolOptions& options, const std::function<void(size_t)>& work) {
  int fds[2];
  if (::pipe(fds) != 0)
    throw std::runtime_error("pipe() failed: " + std::string(std::strerror(errno)));
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error("fork() failed: " + std::string(std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(task, fds[1], parent, options, work);
  }
  ::close(fds[1]);
  ::setpgid(pid, pid);  // also here, so the group exists before any kill(-pid) below
  // The child's own children inherit the write end; never wait for them to close it.
  ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  return Running{task, pid, fds[0], Clock::now()};
}

TaskOutcome finish(const Running& r, int status, bool interrupted) {
  TaskOutcome outcome;
  outcome.task = r.task;
  outcome.wall_seconds = std::chrono::duration<double>(Clock::now() - r.started).count();
  outcome.error = drain(r.error_fd);
  ::close(r.error_fd);
  if (WIFEXITED(status)) {
    outcome.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    outcome.exit_code = 128 + WTERMSIG(status);
    if (outcome.error.empty()) {
      outcome.error = "killed by signal " + std::to_string(WTERMSIG(status));
    }
  } else {
    outcome.exit_code = kExitFailure;
  }
  if (outcome.exit_code != 0 && outcome.error.empty()) {
    outcome.error = "exited with code " + std::to_string(outcome.exit_code);
  }
  outcome.interrupted = interrupted;
  return outcome;
}

}  // namespace

void run_in_processes(const std::vector<size_t>& tasks, const PoolOptions& options,
                      const std::function<void(size_t)>& work,
                      const std::function<void(const TaskOutcome&)>& on_done,
                      const std::function<void()>& on_tick) {
  const size_t jobs = static_cast<size_t>(std::max(1, options.jobs));
  const auto stopping = [&] { return options.stop && *options.stop; };
  std::vector<Running> running;
  size_t next = 0;
  Clock::time_point last_tick = Clock::now();
  bool woken_in_vain = false;  // the last poll answered, yet no child had ended
  while (next < tasks.size() || !running.empty()) {
    while (!stopping() && running.size() < jobs && next < tasks.size()) {
      running.push_back(launch(tasks[next++], options, work));
    }
    if (stopping()) {
      for (const Running& r : running) ::kill(-r.pid, SIGTERM);
      for (const Running& r : running) {
        int status = 0;
        while (::waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {
        }
        on_done(finish(r, status, true));
      }
      return;
    }
    bool reaped = false;
    for (size_t i = 0; i < running.size();) {
      int status = 0;
      const pid_t done = ::waitpid(running[i].pid, &status, WNOHANG);
      if (done == running[i].pid) {
        const Running r = running[i];
        running.erase(running.begin() + static_cast<long>(i));
        on_done(finish(r, status, stopping()));
        reaped = true;
        woken_in_vain = false;
      } else {
        ++i;
      }
    }
    if (reaped) continue;
    const auto now = Clock::now();
    if (std::chrono::duration<double>(now - last_tick).count() >= options.tick_seconds) {
      on_tick();
      last_tick = now;
    }
    if (!woken_in_vain) {
      // Until a child writes its error or ends (its pipe closes): a run of 50 ms no longer waits
      // up to a fifth of that again for a fixed sleep to pass.
      std::vector<pollfd> fds;
      for (const Running& r : running) fds.push_back({r.error_fd, POLLIN, 0});
      woken_in_vain = ::poll(fds.data(), fds.size(), 10) > 0;
    } else {
      // Readable, but its child not ended yet (writing its error, or exiting): poll would answer
      // at once until then.
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      woken_in_vain = false;
    }
  }
}

}  // namespace ddpsim
