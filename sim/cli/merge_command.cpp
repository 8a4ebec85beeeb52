// ddpsim merge OUT1 OUT2 ... -o OUT: joins the shards of one sweep (sim/sweep/sweep_merge.h).
#include <cstdio>
#include <string>
#include <vector>

#include "sim/cli/command.h"
#include "sim/sweep/sweep_merge.h"

namespace ddpsim::cli {
namespace {

struct Options {
  std::vector<std::string> inputs;
  std::string out_dir;
} opts;

int run() {
  const MergeReport report = merge_sweeps(opts.inputs, opts.out_dir);
  std::printf("merged %zu input(s) into %s/results.csv: %zu rows", opts.inputs.size(),
              opts.out_dir.c_str(), report.rows);
  if (report.points > 0) std::printf(" of %zu points", report.points);
  if (report.duplicates > 0) std::printf(", %zu duplicate rows dropped", report.duplicates);
  if (report.failed > 0) std::printf(", %zu failed", report.failed);
  std::printf("\n");
  if (!report.missing.empty()) {
    std::string list;
    for (size_t i = 0; i < report.missing.size() && i < 20; ++i)
      list += (i ? ", " : "") + std::to_string(report.missing[i]);
    if (report.missing.size() > 20) list += ", ...";
    std::fprintf(stderr,
                 "warning: %zu point(s) missing (%s): run the shards that hold them, then merge "
                 "again\n",
                 report.missing.size(), list.c_str());
  }
  return 0;
}

const bool registered = register_command({
    "merge",
    "Join the output folders of a sharded sweep into one (results.csv, sweep.json, points/)",
    21,
    [](CLI::App* app) {
      app->add_option("inputs", opts.inputs, "Sweep output folders (or results.csv files)")
          ->required();
      app->add_option("-o,--out", opts.out_dir, "Merged output folder")->required();
    },
    run,
});

}  // namespace
}  // namespace ddpsim::cli
