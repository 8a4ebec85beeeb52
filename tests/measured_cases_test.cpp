// The measurement file of `ddpsim validate --measured` (sim/validation/measured_cases.h): its
// cases, resolved scenario paths and group `local`; every mistake at file:line:column; and the
// command itself on a hand-written point (a 2-node scenario), reported beside the published
// cases with exit 0, or exit 2 with the location of a mistake.
#include "sim/validation/measured_cases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "sim/text/input_error.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

namespace fs = std::filesystem;

const std::string kBinary = DDPSIM_BINARY;
const testing::ScratchFolder kScratch("ddpsim-measured-cases-test");

// A folder with a scenario `p.yaml` of two single-GPU nodes and a 10 Gbps NIC.
fs::path folder_with_scenario(const std::string& name) {
  const fs::path dir = kScratch.fresh(name);
  std::ofstream(dir / "p.yaml")
      << "name: p\n"
      << "cluster: {nodes: 2, gpus_per_node: 1, gpu: a100-sxm-40gb, pcie: 32GB/s, nic: "
         "{bandwidth: 10Gbps}}\n"
      << "model: {name: resnet50}\n"
      << "training: {batch_per_gpu: 32, iterations: 3}\n";
  return dir;
}

const char* kGood = R"({"format": 1, "source": "ground_truth.py on vm, 2026-11-27",
 "busy_load": 3, "points": [{"anything": "kept for people"}],
 "cases": [{"id": "local-p", "scenario": "p.yaml", "metric": "iteration_time",
            "measured": 0.25, "unit": "s", "load": 2.5, "note": "two ranks"}]}
)";

TEST(MeasuredCases, ReadsCasesIntoTheLocalGroupWithScenariosBesideTheFile) {
  const fs::path dir = folder_with_scenario("good");
  const MeasuredFile m = parse_measured_file(kGood, (dir / "m.json").string());
  EXPECT_EQ(m.source, "ground_truth.py on vm, 2026-11-27");
  ASSERT_EQ(m.cases.size(), 1u);
  EXPECT_EQ(m.cases[0].scenario, (dir / "p.yaml").string());
  EXPECT_DOUBLE_EQ(m.cases[0].load, 2.5);
  EXPECT_EQ(m.cases[0].c.id, "local-p");
  EXPECT_EQ(m.cases[0].c.group, ValidationGroup::kLocal);
  EXPECT_EQ(m.cases[0].c.metric, ValidationMetric::kIterationTime);
  EXPECT_DOUBLE_EQ(m.cases[0].c.measured, 0.25);
  EXPECT_EQ(m.cases[0].c.note, "two ranks");
  EXPECT_STREQ(group_name(ValidationGroup::kLocal), "local");
}

struct Bad {
  const char* name;
  const char* text;
  const char* where;    // line:column
  const char* message;  // a substring
};

class MeasuredCaseErrors : public ::testing::TestWithParam<Bad> {};

TEST_P(MeasuredCaseErrors, AreLocated) {
  const Bad& bad = GetParam();
  const fs::path dir = folder_with_scenario(std::string("bad-") + bad.name);
  const std::string file = (dir / "m.json").string();
  try {
    parse_measured_file(bad.text, file);
    FAIL() << "accepted: " << bad.text;
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().to_string(), file + ":" + bad.where) << e.what();
    EXPECT_NE(std::string(e.what()).find(bad.message), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Catalogue, MeasuredCaseErrors,
    ::testing::Values(
        Bad{"unknown_key",
            "{\"format\": 1, \"source\": \"s\",\n \"cases\": [{\"id\": \"a\", \"scenario\": "
            "\"p.yaml\",\n  \"metric\": \"iteration_time\", \"measured\": 1, \"unit\": \"s\", "
            "\"colour\": 3}]}\n",
            "3:59", "colour"},
        Bad{"missing_scenario",
            "{\"format\": 1, \"source\": \"s\",\n \"cases\": [{\"id\": \"a\", \"scenario\": "
            "\"q.yaml\", \"metric\": \"iteration_time\", \"measured\": 1, \"unit\": \"s\"}]}\n",
            "2:36", "scenario 'q.yaml' not found"},
        Bad{"wrong_unit",
            "{\"format\": 1, \"source\": \"s\",\n \"cases\": [{\"id\": \"a\", \"scenario\": "
            "\"p.yaml\", \"metric\": \"iteration_time\", \"measured\": 1, \"unit\": \"GB/s\"}]}\n",
            "2:97", "does not fit metric iteration_time"},
        Bad{"negative_value",
            "format: 1\nsource: s\ncases:\n  - {id: a, scenario: p.yaml, metric: "
            "iteration_time, measured: -1, unit: s}\n",
            "4:65", "measured"},
        Bad{"format", "format: 2\nsource: s\ncases: []\n", "1:9", "unknown format"},
        Bad{"no_cases", "format: 1\nsource: s\ncases: []\n", "3:8", "non-empty list"}),
    [](const ::testing::TestParamInfo<Bad>& info) { return std::string(info.param.name); });

TEST(MeasuredCases, ValidateReportsThePointInTheLocalGroup) {
  const fs::path dir = folder_with_scenario("command");
  std::ofstream(dir / "m.json") << kGood;
  const testing::Exited r =
      testing::run_program({kBinary, "validate", "--measured", (dir / "m.json").string(),
                            "--measured-only", "-o", (dir / "out").string(), "--no-plot"},
                           kScratch);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("local-p"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("local"), std::string::npos) << r.out;
  const std::string csv = testing::read_text(dir / "out" / "validation.csv");
  EXPECT_NE(csv.find("local-p,local,ok,iteration_time,s,0.25"), std::string::npos) << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 2) << "the header and the one point:\n"
                                                         << csv;
}

TEST(MeasuredCases, ValidateExitsTwoAtTheMistake) {
  const fs::path dir = folder_with_scenario("command-bad");
  std::ofstream(dir / "m.json") << "{\"format\": 1, \"source\": \"s\", \"cases\": 3}\n";
  const testing::Exited r =
      testing::run_program({kBinary, "validate", "--measured", (dir / "m.json").string(), "-o",
                            (dir / "out").string(), "--no-plot"},
                           kScratch);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find((dir / "m.json").string() + ":1:"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ddpsim
