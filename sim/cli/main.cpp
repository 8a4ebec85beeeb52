// ddpsim: predicts data-parallel training throughput on a simulated cluster.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "sim/cli/command.h"
#include "sim/process/build_info.h"
#include "sim/text/closest_name.h"
#include "sim/text/input_error.h"

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

bool scenario_file(const std::string& word) {
  for (const char* tail : {".yaml", ".yml", ".json"}) {
    const std::string t = tail;
    if (word.size() > t.size() && word.compare(word.size() - t.size(), t.size(), t) == 0)
      return true;
  }
  return false;
}

// The option `arg` names when it takes a value it cannot go without; nullptr otherwise.
const CLI::Option* value_option(CLI::App* sub, const std::string& arg) {
  if (arg.size() < 2 || arg[0] != '-' || arg.find('=') != std::string::npos) return nullptr;
  const CLI::Option* option = sub->get_option_no_throw(arg);
  return option != nullptr && option->get_expected_min() > 0 ? option : nullptr;
}

// Mistakes CLI11 would answer only with "The following arguments were not expected": a
// misspelt option (`--uncertanity`) gets the nearest real one of that command, and `--set k v`
// gets the one-word form it needs. Returns the message, or "" when nothing is wrong here.
std::string option_hint(int argc, char** argv, CLI::App* sub) {
  std::vector<std::string> names = {"--help"};
  for (const CLI::Option* option : sub->get_options())
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  const std::string command = sub->get_name();
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;
    if (arg == "--set" && i + 2 < argc && std::string(argv[i + 1]).find('=') == std::string::npos &&
        argv[i + 2][0] != '-' && !scenario_file(argv[i + 2])) {
      return "--set takes key=value as one word: did you mean --set " + std::string(argv[i + 1]) +
             "=" + argv[i + 2] + "?";
    }
    // CLI11 takes an option's required value whatever it is: `--fit-platform -o x` would make
    // "-o" the log and then report --output missing. Name the value that is missing instead.
    if (const CLI::Option* option = value_option(sub, arg); option != nullptr && i + 1 < argc) {
      const std::string next = argv[i + 1];
      const std::string next_name = next.substr(0, next.find('='));
      if (next.size() > 1 && next[0] == '-' &&
          (std::find(names.begin(), names.end(), next_name) != names.end() ||
           (next.size() == 2 && sub->get_option_no_throw(next) != nullptr))) {
        const std::string what = arg == "--fit-platform" ? "nccl-tests all_reduce logs (LOG or "
                                                           "LOG@NODESxGPUS_PER_NODE)"
                                                         : "its value";
        return arg + " expects " + what + " right after it, but the option '" + next +
               "' follows (see ddpsim " + command + " --help)";
      }
    }
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) continue;
    const std::string name = arg.substr(0, arg.find('='));
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    std::string message = "unknown option '" + name + "' for ddpsim " + command;
    if (auto closest = closest_name(name, names)) message += "; did you mean " + *closest + "?";
    return message + " (see ddpsim " + command + " --help)";
  }
  return "";
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
  for (const auto& [sub, command] : subs) {
    if (argc < 2 || command->name != argv[1]) continue;
    const std::string hint = ddpsim::cli::option_hint(argc, argv, sub);
    if (hint.empty()) break;
    std::fprintf(stderr, "error: %s\n", hint.c_str());
    return ddpsim::kExitBadInput;
  }
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
