// Provenance: `ddpsim --version`, the SHA-256 of every file a run read in results.json,
// trace.json, the sweep's point files and results.csv, and a resumed sweep that recomputes a
// point when a file it read (or ddpsim itself) changed, instead of keeping the old number.
#include "sim/results/provenance.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "sim/process/build_info.h"
#include "sim/process/isolated.h"
#include "sim/sweep/results_csv.h"
#include "sim/text/input_file.h"
#include "sim/text/inputs_read.h"
#include "sim/text/sha256.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::Exited;
using testing::read_text;

const testing::ScratchFolder kScratch("ddpsim-provenance-test");

Exited ddpsim(std::vector<std::string> args) {
  args.insert(args.begin(), DDPSIM_BINARY);
  return testing::run_program(args, kScratch);
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

// What `sha256sum` (GNU coreutils) prints for the file: an independent implementation.
std::string coreutils_sha256(const fs::path& path) {
  const testing::ShellRun r = testing::run_shell("sha256sum '" + path.string() + "'");
  return r.code == 0 ? r.output.substr(0, 64) : "sha256sum failed: " + r.output;
}

// ---------------------------------------------------------------- SHA-256

TEST(Sha256, MatchesThePublishedTestVectors) {
  // FIPS 180-4 examples (NIST CSRC "Example Values"), and the empty message.
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, PiecewiseUpdatesEqualOneUpdateAtEveryBlockBoundary) {
  std::string text;
  for (int i = 0; i < 300; ++i) text += static_cast<char>(i * 7 + 3);
  const std::string whole = sha256_hex(text);
  for (size_t cut : {0, 1, 55, 56, 63, 64, 65, 119, 128, 299, 300}) {
    Sha256 hash;
    hash.update(std::string_view(text).substr(0, cut));
    hash.update(std::string_view(text).substr(cut));
    EXPECT_EQ(hash.hex_digest(), whole) << cut;
  }
}

TEST(Sha256, AgreesWithCoreutilsOnARealFile) {
  const fs::path file = kScratch.root() / "digest.bin";
  std::string bytes;
  for (int i = 0; i < 100000; ++i) bytes += static_cast<char>((i * 2654435761u) >> 24);
  write(file, bytes);
  EXPECT_EQ(sha256_hex(read_text(file)), coreutils_sha256(file));
}

// ---------------------------------------------------------------- inputs-read registry

TEST(InputsRead, ReadInputFileRecordsPathRoleSizeAndDigestOnce) {
  set_inputs_read({});
  const fs::path a = kScratch.root() / "a.yaml", b = kScratch.root() / "b.yaml";
  write(a, "first\n");
  write(b, "second file\n");
  read_input_file(a.string(), "scenario", "scenario file");
  read_input_file(b.string(), "profile", "calibration profile");
  write(a, "first, edited\n");
  read_input_file(a.string(), "scenario", "scenario file");  // read again: same place, new digest
  read_regular_file(b.string(), "not recorded");             // no record of its own
  const std::vector<InputRecord>& inputs = inputs_read();
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(inputs[0].role, "scenario");
  EXPECT_EQ(inputs[0].path, a.string());
  EXPECT_EQ(inputs[0].bytes, 14u);
  EXPECT_EQ(inputs[0].sha256, coreutils_sha256(a));
  EXPECT_EQ(inputs[1].role, "profile");
  EXPECT_EQ(inputs[1].sha256, sha256_hex("second file\n"));
  EXPECT_EQ(input_digests(inputs), "scenario=" + inputs[0].sha256 + ";profile=" + inputs[1].sha256);
}

TEST(InputsRead, FilesReadInAnIsolatedChildAreRecordedInTheParent) {
  set_inputs_read({});
  const fs::path table = kScratch.root() / "child.yaml";
  write(table, "read by the child only\n");
  const IsolatedResult child = run_isolated([&] {
    read_input_file(table.string(), "alpha_beta_table", "alpha-beta table");
    return std::string("payload\nwith a newline");
  });
  ASSERT_TRUE(child.ok) << child.payload;
  EXPECT_EQ(child.payload, "payload\nwith a newline");
  ASSERT_EQ(inputs_read().size(), 1u);
  EXPECT_EQ(inputs_read()[0].role, "alpha_beta_table");
  EXPECT_EQ(inputs_read()[0].sha256, coreutils_sha256(table));
  // An error text still comes back whole, and what the child read before failing counts too.
  const fs::path profile = kScratch.root() / "child-profile.yaml";
  write(profile, "read, then the child fails\n");
  const IsolatedResult failed = run_isolated([&]() -> std::string {
    read_input_file(profile.string(), "profile", "calibration profile");
    throw std::runtime_error("x");
  });
  EXPECT_FALSE(failed.ok);
  EXPECT_EQ(failed.payload, "x");
  ASSERT_EQ(inputs_read().size(), 2u);
  EXPECT_EQ(inputs_read()[1].path, profile.string());
}

TEST(Provenance, ChangeNamesTheVersionOrTheFileThatChanged) {
  const fs::path file = kScratch.root() / "p.yaml";
  write(file, "v1\n");
  set_inputs_read({});
  read_input_file(file.string(), "profile", "calibration profile");
  const Provenance recorded = current_provenance();
  EXPECT_EQ(provenance_from_json(provenance_to_json(recorded)).inputs[0].sha256,
            recorded.inputs[0].sha256);
  CurrentFiles same;
  EXPECT_EQ(provenance_change(recorded, &same), "");

  Provenance other_build = recorded;
  other_build.commit = "0000000000000000000000000000000000000000";
  CurrentFiles files;
  EXPECT_NE(provenance_change(other_build, &files)
                .find("computed by ddpsim " + std::string(ddpsim_version()) +
                      " (commit 0000000000000000000000000000"),
            std::string::npos);
  EXPECT_EQ(provenance_change(Provenance{}, &files),
            "computed by a ddpsim that recorded no version");

  write(file, "v2\n");  // same size, other bytes
  CurrentFiles edited;
  EXPECT_EQ(provenance_change(recorded, &edited), "profile " + file.string() + " changed since");
  fs::remove(file);
  CurrentFiles gone;
  EXPECT_EQ(provenance_change(recorded, &gone),
            "profile " + file.string() +
                " can no longer be read: cannot read the profile: No such file or directory");
}

// ---------------------------------------------------------------- the commit at build time

// What sim/process/build_info.cmake writes for a source folder.
std::string build_info_for(const fs::path& source) {
  const fs::path output = kScratch.root() / "build_info_values.cpp";
  fs::remove(output);
  const testing::ShellRun r =
      testing::run_shell("cmake -DSOURCE_DIR='" + source.string() + "' -DOUTPUT='" +
                         output.string() + "' -DVERSION=9.8.7 -DGIT=$(command -v git) -P '" +
                         DDPSIM_SOURCE_DIR + "/sim/process/build_info.cmake'");
  EXPECT_EQ(r.code, 0) << r.output;
  return read_text(output);
}

TEST(BuildInfo, CommitOfTheCheckoutElseUnknown) {
  // This checkout: its HEAD, 40 hex digits (with -dirty while tracked files are edited).
  const std::string here = build_info_for(DDPSIM_SOURCE_DIR);
  EXPECT_NE(here.find("return \"9.8.7\";"), std::string::npos) << here;
  const testing::ShellRun head = testing::run_shell(std::string("git -C '") + DDPSIM_SOURCE_DIR +
                                                    "' rev-parse HEAD --show-toplevel");
  const std::string top = head.code == 0 && head.output.size() > 41 ? head.output.substr(41) : "";
  if (!top.empty() && fs::canonical(top.substr(0, top.size() - 1)) ==
                          fs::canonical(DDPSIM_SOURCE_DIR)) {  // sources of their own checkout
    EXPECT_NE(here.find("return \"" + head.output.substr(0, 40)), std::string::npos) << here;
    EXPECT_TRUE(std::regex_search(here, std::regex(R"(return "[0-9a-f]{40}(-dirty)?";)"))) << here;
  }
  // Sources without .git (a release tarball): unknown.
  const fs::path tarball = kScratch.fresh("tarball");
  write(tarball / "CMakeLists.txt", "project(x)\n");
  EXPECT_NE(build_info_for(tarball).find("return \"unknown\";"), std::string::npos);
  // The same tarball unpacked inside some other git repository: still unknown, not that
  // repository's commit.
  const fs::path other = kScratch.fresh("other-repository");
  ASSERT_EQ(testing::run_shell("git init -q '" + other.string() + "'").code, 0);
  fs::create_directories(other / "ddpsim-0.1.0");
  write(other / "ddpsim-0.1.0/CMakeLists.txt", "project(x)\n");
  EXPECT_NE(build_info_for(other / "ddpsim-0.1.0").find("return \"unknown\";"), std::string::npos);
}

// ---------------------------------------------------------------- through the binary

// A small cluster whose all-reduce costs come from a measured table beside the scenario.
const std::string kScenario =
    read_text(std::string(DDPSIM_SOURCE_DIR) + "/tests/data/small_cluster.yaml") +
    "sync: {alpha_beta: table.yaml}\n";

std::string table(double alpha) {
  return "collectives:\n  - op: all_reduce\n    algorithm: ring\n    fit:\n"
         "      - {min_bytes: 0, max_bytes: .inf, alpha: " +
         std::to_string(alpha) + ", beta: 1e-10}\n";
}

// The binary's own version and commit: a partial rebuild may have linked this test against an
// older commit than the binary it runs, so the binary is asked.
struct BinaryVersion {
  std::string line, version, commit;
};

BinaryVersion binary_version() {
  const Exited r = ddpsim({"--version"});
  static const std::regex form(R"((ddpsim ([^ ]+) \(commit ([^)]+)\))\n)");
  std::smatch m;
  if (r.exit_code != 0 || !std::regex_match(r.out, m, form)) return {r.out + r.err, "?", "?"};
  return {m[1], m[2], m[3]};
}

TEST(ProvenanceCli, VersionPrintsTheVersionAndTheCommit) {
  const Exited r = ddpsim({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(binary_version().version, ddpsim_version());
  EXPECT_TRUE(std::regex_match(r.out, std::regex(R"(ddpsim [0-9]+\.[0-9]+\.[0-9]+ \(commit )"
                                                 R"(([0-9a-f]{40}(-dirty)?|unknown)\)\n)")))
      << r.out;
}

TEST(ProvenanceCli, SimulateRecordsVersionCommitAndEveryFileItReadInResultsAndTrace) {
  const fs::path dir = kScratch.fresh("simulate");
  write(dir / "s.yaml", kScenario);
  write(dir / "table.yaml", table(12e-6));
  const Exited r = ddpsim(
      {"simulate", (dir / "s.yaml").string(), "-o", (dir / "out").string(), "--no-baseline"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json results = json::parse(read_text(dir / "out/results.json"));
  const json trace = json::parse(read_text(dir / "out/trace.json"));
  for (const json& p : {results.at("provenance"), trace.at("otherData").at("provenance")}) {
    EXPECT_EQ(p.at("ddpsim_version"), binary_version().version);
    EXPECT_EQ(p.at("source_commit"), binary_version().commit);
    // The scenario and the alpha-beta table (both read by the scenario loader, in that order),
    // each with the digest sha256sum gives.
    ASSERT_EQ(p.at("inputs").size(), 2u) << p.dump();
    EXPECT_EQ(p["inputs"][0]["role"], "scenario");
    EXPECT_EQ(p["inputs"][0]["path"], (dir / "s.yaml").string());
    EXPECT_EQ(p["inputs"][0]["sha256"], coreutils_sha256(dir / "s.yaml"));
    EXPECT_EQ(p["inputs"][0]["bytes"], fs::file_size(dir / "s.yaml"));
    EXPECT_EQ(p["inputs"][1]["role"], "alpha_beta_table");
    EXPECT_EQ(p["inputs"][1]["path"], (dir / "table.yaml").string());
    EXPECT_EQ(p["inputs"][1]["sha256"], coreutils_sha256(dir / "table.yaml"));
  }
}

// One column of a results.csv, every row.
std::vector<std::string> column(const std::string& csv_text, const std::string& name) {
  const CsvTable table = parse_csv(csv_text, "results.csv");
  const int c = csv_column(table, name);
  EXPECT_GE(c, 0) << name;
  std::vector<std::string> values;
  for (const auto& row : table.rows) values.push_back(c < 0 ? "" : row[static_cast<size_t>(c)]);
  return values;
}

TEST(ProvenanceCli, ResumedSweepRecomputesPointsWhoseFilesOrVersionChanged) {
  const fs::path dir = kScratch.fresh("sweep");
  write(dir / "s.yaml", std::string(kScenario) + "sweep: {training.batch_per_gpu: [16, 32]}\n");
  write(dir / "table.yaml", table(12e-6));
  const std::vector<std::string> args = {"sweep", (dir / "s.yaml").string(), "-o",
                                         (dir / "out").string(), "--no-baseline"};
  Exited r = ddpsim(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string first_csv = read_text(dir / "out/results.csv");
  const BinaryVersion binary = binary_version();
  EXPECT_EQ(column(first_csv, "ddpsim_version"), (std::vector<std::string>(2, binary.version)));
  EXPECT_EQ(column(first_csv, "source_commit"), (std::vector<std::string>(2, binary.commit)));
  const std::string digests = "scenario=" + coreutils_sha256(dir / "s.yaml") +
                              ";alpha_beta_table=" + coreutils_sha256(dir / "table.yaml");
  EXPECT_EQ(column(first_csv, "inputs_sha256"), (std::vector<std::string>(2, digests)));
  const std::vector<std::string> times = column(first_csv, "iteration_time_s");

  // Nothing changed: both points are kept.
  r = ddpsim(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("2 of 2 points already done"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("recomputing"), std::string::npos) << r.err;
  EXPECT_EQ(read_text(dir / "out/results.csv"), first_csv);

  // The table the points read is slower now: keeping the old numbers would be wrong.
  write(dir / "table.yaml", table(5e-3));
  r = ddpsim(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("recomputing 2 recorded points: alpha_beta_table " +
                       (dir / "table.yaml").string() + " changed since"),
            std::string::npos)
      << r.err;
  const std::string second_csv = read_text(dir / "out/results.csv");
  const std::vector<std::string> slower = column(second_csv, "iteration_time_s");
  for (size_t i = 0; i < 2; ++i) EXPECT_GT(std::stod(slower[i]), std::stod(times[i])) << i;
  EXPECT_EQ(column(second_csv, "inputs_sha256")[0],
            "scenario=" + coreutils_sha256(dir / "s.yaml") +
                ";alpha_beta_table=" + coreutils_sha256(dir / "table.yaml"));

  // A point computed by another ddpsim build is recomputed; the other one is kept.
  fs::path point;
  for (const auto& entry : fs::directory_iterator(dir / "out/points"))
    if (entry.path().string().find(".trace.") == std::string::npos) point = entry.path();
  json doc = json::parse(read_text(point));
  doc["provenance"]["source_commit"] = "0123456789012345678901234567890123456789";
  write(point, doc.dump(1));
  r = ddpsim(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.err.find("recomputing 1 recorded point: computed by ddpsim " + binary.version +
                 " (commit 0123456789012345678901234567890123456789), this is " + binary.line),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("1 of 2 points already done"), std::string::npos) << r.err;
  EXPECT_EQ(read_text(dir / "out/results.csv"), second_csv);

  // An edit of the scenario that leaves every point as it was (a comment) still changes a file
  // the points read: they are recomputed, to the same numbers.
  write(dir / "s.yaml",
        std::string("# a comment\n") + kScenario + "sweep: {training.batch_per_gpu: [16, 32]}\n");
  r = ddpsim(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("recomputing 2 recorded points: scenario"), std::string::npos) << r.err;
  EXPECT_EQ(column(read_text(dir / "out/results.csv"), "iteration_time_s"), slower);
}

}  // namespace
}  // namespace ddpsim
