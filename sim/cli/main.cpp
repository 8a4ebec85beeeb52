// ddpsim: predicts data-parallel training throughput on a simulated cluster.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "sim/cli/command.h"
#include "sim/util/build_info.h"
#include "sim/util/closest_name.h"
#include "sim/util/input_error.h"

namespace ddpsim::cli {
namespace {
std::vector<Command>& registry() {
  static std::vector<Command> commands;
  return commands;
}
}  // namespace

bool register_command(Command command) {
  registry().push_back(std::move(command));
  return true;
}

std::vector<Command> registered_commands() {
  std::vector<Command> commands = registry();
  std::stable_sort(commands.begin(), commands.end(),
                   [](const Command& a, const Command& b) { return a.order < b.order; });
  return commands;
}

namespace {

// `ddpsim simulte ...`: CLI11 would only say the word was not expected. Name the commands there
// are and the one most likely meant.
bool unknown_command(int argc, char** argv, const std::vector<Command>& commands) {
  if (argc < 2 || argv[1][0] == '-' || argv[1][0] == '\0') return false;
  const std::string word = argv[1];
  std::vector<std::string> names;
  for (const Command& command : commands) {
    if (command.name == word) return false;
    names.push_back(command.name);
  }
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  std::string message = "error: unknown command '" + word + "'";
  if (auto closest = closest_name(word, names)) message += "; did you mean " + *closest + "?";
  std::fprintf(stderr, "%s (commands: %s; see --help)\n", message.c_str(), list.c_str());
  return true;
}

}  // namespace
}  // namespace ddpsim::cli

int main(int argc, char** argv) {
  CLI::App app{
      "ddpsim: a SimGrid simulator of data-parallel deep-learning training.\n"
      "Predicts throughput, iteration breakdown and communication share before you book a "
      "cluster."};
  app.require_subcommand(1);
  app.set_version_flag("--version", ddpsim::version_line(),
                       "Print the version and the source commit");
  // Every option's help shows its default (subcommands inherit this).
  app.option_defaults()->always_capture_default();
  const std::vector<ddpsim::cli::Command> commands = ddpsim::cli::registered_commands();
  if (ddpsim::cli::unknown_command(argc, argv, commands)) return ddpsim::kExitBadInput;
  std::vector<std::pair<CLI::App*, const ddpsim::cli::Command*>> subs;
  for (const auto& command : commands) {
    CLI::App* sub = app.add_subcommand(command.name, command.help);
    command.setup(sub);
    subs.emplace_back(sub, &command);
  }
  // One line, like every other error: "error: --max-wall: ... (see --help)".
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "error: " + std::string(e.what()) + " (see --help)\n";
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : ddpsim::kExitBadInput;
  }
  for (const auto& [sub, command] : subs) {
    if (!sub->parsed()) continue;
    try {
      return command->run();
    } catch (const ddpsim::InputError& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      return ddpsim::kExitBadInput;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "internal error: %s\n", e.what());
      return ddpsim::kExitFailure;
    }
  }
  return ddpsim::kExitFailure;
}
