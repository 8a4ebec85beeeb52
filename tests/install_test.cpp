// `cmake --install` puts ddpsim, the calibration harness (where CUDA built it), the report scripts,
// the PyTorch exporter and tools (calibrate/pytorch) and the bundled scenarios under a prefix; the
// installed binary finds its scripts and scenarios relative to itself, so the tree still works
// after it is moved and from any working directory: no path of the build or the sources is used.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/test_process.h"

namespace {

namespace fs = std::filesystem;
using ddpsim::testing::read_text;
using ddpsim::testing::run_shell;
using ddpsim::testing::ShellRun;

const ddpsim::testing::ScratchFolder kScratch("ddpsim-install-test");

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

// Runs `command` in `dir` with none of the variables that point ddpsim at other folders.
ShellRun run_in(const fs::path& dir, const std::string& command) {
  return run_shell("cd " + quoted(dir) +
                   " && env -u DDPSIM_DATA_DIR -u DDPSIM_REPORTS_DIR -u DDPSIM_CALIBRATE " +
                   command);
}

bool torch_available() { return run_shell("/usr/bin/python3 -c 'import torch'").code == 0; }

bool matplotlib_available() {
  return run_shell("/usr/bin/python3 -c 'import matplotlib'").code == 0;
}

TEST(Install, InstalledTreeWorksMovedAndFromAnyDirectory) {
  const fs::path prefix = kScratch.fresh("prefix");
  const fs::path build = DDPSIM_BUILD_DIR;
  const std::string harness = DDPSIM_CALIBRATE_BINARY;
  const bool with_harness = !harness.empty() && fs::exists(harness);
  ShellRun r = run_shell("cmake --install " + quoted(build) + " --prefix " + quoted(prefix) +
                         " --component ddpsim");
  ASSERT_EQ(r.code, 0) << r.output;
  if (with_harness) {
    r = run_shell("cmake --install " + quoted(build) + " --prefix " + quoted(prefix) +
                  " --component calibrate");
    ASSERT_EQ(r.code, 0) << r.output;
  }
  for (const char* file :
       {"bin/ddpsim", "share/ddpsim/reports/ddpsim_report.py",
        "share/ddpsim/reports/validation_plot.py", "share/ddpsim/reports/report_data.py",
        "share/ddpsim/scenarios/default.yaml", "share/ddpsim/scenarios/scaling-resnet50.yaml",
        "share/ddpsim/scenarios/validation/generate.py", "share/doc/ddpsim/README.md",
        "share/doc/ddpsim/docs/results-csv.md",
        // The PyTorch exporter and the tools it imports, the trace annotator, the layer timer.
        "share/ddpsim/pytorch/ddpsim_torch.py", "share/ddpsim/pytorch/export.py",
        "share/ddpsim/pytorch/ddpsim_yaml.py", "share/ddpsim/pytorch/model_trace.py",
        "share/ddpsim/pytorch/op_costs.py", "share/ddpsim/pytorch/annotate.py",
        "share/ddpsim/pytorch/layer_timing.py", "share/ddpsim/pytorch/plain_step.py",
        "share/ddpsim/pytorch/examples/my_model.py"}) {
    EXPECT_TRUE(fs::is_regular_file(prefix / file)) << file;
  }
  EXPECT_EQ(fs::is_regular_file(prefix / "bin/ddpsim-calibrate"), with_harness);

  // Moved after installation, and run from a folder that has nothing of ddpsim in it.
  const fs::path moved = kScratch.root() / "moved";
  fs::remove_all(moved);
  fs::rename(prefix, moved);
  const fs::path elsewhere = kScratch.fresh("elsewhere");
  const std::string ddpsim = quoted(moved / "bin/ddpsim");

  r = run_in(elsewhere, ddpsim + " --version");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output, run_shell(std::string("'") + DDPSIM_BINARY + "' --version").output);

  r = run_in(elsewhere, ddpsim + " simulate " +
                            quoted(moved / "share/ddpsim/scenarios/default.yaml") +
                            " -o default --no-baseline");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::is_regular_file(elsewhere / "default/results.json"));

  // validate with no folder: the bundled validation scenarios beside the installed binary. All
  // 186 cases are PublishedCases.ValidateMeetsTheIssueThresholds's (minutes); the lookup needs
  // only some, so the moved tree keeps one source's folder (7 cases, parameter servers and
  // all-reduce) and the test checks that validate found exactly those.
  const fs::path bundled = moved / "share/ddpsim/scenarios/validation";
  for (const auto& entry : fs::directory_iterator(bundled))
    if (entry.is_directory() && entry.path().filename() != "tensorpack-benchmarks")
      fs::remove_all(entry.path());
  r = run_in(elsewhere, ddpsim + " validate -j 2 --no-plot -o validation");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("overall"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_regular_file(elsewhere / "validation/validation.csv"));
  const std::string csv = read_text(elsewhere / "validation/validation.csv");
  EXPECT_NE(csv.find("ok"), std::string::npos);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 7) << "the header and 7 cases:\n" << csv;

  // The binary says where the installed exporter is.
  r = run_in(elsewhere, ddpsim + " models --help");
  EXPECT_NE(r.output.find((moved / "share/ddpsim/pytorch").lexically_normal().string()),
            std::string::npos)
      << r.output;

  // The installed exporter runs from the moved tree, and the installed ddpsim reads its file.
  if (torch_available()) {
    std::ofstream(elsewhere / "tiny.py")
        << "import torch.nn as nn\n"
           "def build():\n"
           "    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))\n";
    r = run_in(elsewhere, "/usr/bin/python3 " +
                              quoted(moved / "share/ddpsim/pytorch/ddpsim_torch.py") +
                              " export tiny.py:build --input 8 --batch 2 -o tiny.yaml");
    ASSERT_EQ(r.code, 0) << r.output;
    r = run_in(elsewhere, ddpsim + " models tiny.yaml");
    EXPECT_EQ(r.code, 0) << r.output;
  }

  if (!matplotlib_available())
    GTEST_SKIP() << "no matplotlib: the installed report scripts are not run";
  std::ofstream(elsewhere / "s.yaml")
      << "cluster: {nodes: 1, gpus_per_node: 2, gpu: t4, pcie: 16GB/s,\n"
         "          intra_node: {kind: pcie}}\n"
         "model: {name: mlp, layers: [1024, 4096, 10]}\n"
         "training: {iterations: 2, warmup: 1}\n"
         "sweep: {cluster.gpus_per_node: [1, 2]}\n";
  r = run_in(elsewhere, ddpsim + " sweep s.yaml -o sweep --no-baseline");
  ASSERT_EQ(r.code, 0) << r.output;
  r = run_in(elsewhere, ddpsim + " report sweep");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::is_regular_file(elsewhere / "sweep/report/report.html")) << r.output;
}

}  // namespace
