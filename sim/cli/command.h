// Subcommands register themselves at static-initialisation time, so each lives in its own file
// (simulate_command.cpp, models_command.cpp, ...) and main.cpp never changes when one is added.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace ddpsim::cli {

struct Command {
  std::string name;
  std::string help;
  int order = 100;                       // position in `ddpsim --help`
  std::function<void(CLI::App*)> setup;  // add options; store them in the command's statics
  std::function<int()> run;              // returns the process exit code
};

// Returns true so it can initialise a file-scope `static const bool registered = ...`.
bool register_command(Command command);

// Every registered command, sorted by `order`.
std::vector<Command> registered_commands();

}  // namespace ddpsim::cli
