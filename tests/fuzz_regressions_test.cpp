// Every input a fuzz target (tests/fuzz) ever failed on, replayed under the same check: each file
// in tests/data/fuzz_regressions/<target>/ must now be accepted or refused with an InputError,
// with finite numbers. The findings' properties are also tested by name below.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/input/scenario_loader.h"
#include "sim/measurements/nccl_tests_import.h"
#include "sim/text/utf8.h"
#include "tests/fuzz/nccl_tests_check.h"
#include "tests/fuzz/profile_check.h"
#include "tests/fuzz/scenario_check.h"
#include "tests/fuzz/sweep_check.h"
#include "tests/fuzz/units_check.h"

namespace ddpsim {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = fs::path(DDPSIM_SOURCE_DIR) / "tests/data/fuzz_regressions";

using Check = void (*)(const uint8_t*, size_t);

void replay(const std::string& target, Check check) {
  fuzz::finding_handler() = [](const std::string& what) { throw fuzz::FuzzFinding{what}; };
  if (!fs::is_directory(kDir / target)) return;  // no finding for this target yet
  for (const auto& entry : fs::directory_iterator(kDir / target)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    const std::string input = bytes.str();
    try {
      check(reinterpret_cast<const uint8_t*>(input.data()), input.size());
    } catch (const fuzz::FuzzFinding& f) {
      ADD_FAILURE() << entry.path() << ": " << f.what;
    }
  }
}

TEST(FuzzRegressions, ScenarioFindingsStayFixed) { replay("scenario", fuzz::check_scenario); }
TEST(FuzzRegressions, SweepFindingsStayFixed) { replay("sweep", fuzz::check_sweep); }
TEST(FuzzRegressions, ProfileFindingsStayFixed) { replay("profile", fuzz::check_profile); }
TEST(FuzzRegressions, NcclTestsFindingsStayFixed) { replay("nccl_tests", fuzz::check_nccl_tests); }
TEST(FuzzRegressions, UnitsFindingsStayFixed) { replay("units", fuzz::check_units); }

// Finding 1 (fuzz_scenario): a byte that is not UTF-8 in a scenario string reached
// results.json, whose writer threw: "internal error", exit 1, no results.
TEST(FuzzFindings, ScenarioThatIsNotUtf8IsRefusedAtTheByte) {
  try {
    parse_scenario_text("name: caf\xC3\xA9-run\nseed: 1 # \xCF\n", "s.yaml");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().to_string(), "s.yaml:2:11");
    EXPECT_EQ(e.message(),
              "byte 0xCF is not valid UTF-8: save the file as UTF-8 (results are JSON, which can "
              "carry no other encoding)");
  }
  try {
    parse_scenario_text("cluster: {gpu: v100-sxm2-16gb, pcie: 16GB/s}\nmodel: {name: resnet50}\n",
                        "s.yaml", {"name=x\xFFy"});
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().to_string(), "<--set name>");
  }
}

// A scenario text's refusal as "file:line:col message", or "accepted".
std::string where_and_what(const std::string& text) {
  try {
    parse_scenario_text(text, "s.yaml");
  } catch (const InputError& e) {
    return e.where().to_string() + " " + e.message();
  }
  return "accepted";
}

// yaml-cpp 0.7 loops on some streams with a lone CR or "!,", and read a NUL inside a comment as
// the end: each refused at its byte before yaml-cpp sees the text.
TEST(FuzzFindings, LoneCarriageReturnAndControlBytesInCommentsAreRefusedAtTheByte) {
  EXPECT_EQ(where_and_what("name: a\nseed: 1\r# x\n"),
            "s.yaml:2:8 YAML syntax error: a carriage return not followed by a line feed; save "
            "the file with LF or CRLF line endings");
  EXPECT_EQ(where_and_what("name: a\n# a comment \x01 here\n"),
            "s.yaml:2:13 YAML syntax error: control character 0x01 (YAML allows tab, CR and LF "
            "only)");
  // "!," never returned either: tags are refused, and so is a value that starts with ','.
  EXPECT_EQ(where_and_what("name: a\n!,\n"),
            "s.yaml:2:1 YAML syntax error: YAML tags ('!') are not used in ddpsim's files; quote a "
            "value that starts with '!'");
  EXPECT_EQ(where_and_what("name: ,a\n"),
            "s.yaml:1:7 YAML syntax error: a value cannot start with ',' outside a flow sequence "
            "or mapping");
  // "&a," as well; an alias ended by a flow collection's comma stays valid YAML.
  EXPECT_EQ(where_and_what("name: &a,b\n"),
            "s.yaml:1:9 YAML syntax error: an anchor or alias name cannot contain ','");
  EXPECT_EQ(where_and_what("x: &n 1\ny: [*n, *n]\n").find("anchor"), std::string::npos);
  // CRLF line endings stay welcome.
  EXPECT_EQ(where_and_what("name: a\r\nseed: 1\r\n").find("carriage"), std::string::npos);
}

// Finding 4 (fuzz_profile, 2026-11-28): "   x [a: 0\n,\n" made yaml-cpp 0.7 grow without bound
// (24 GB in 50 s for a 142-byte profile): a bracket inside a plain scalar ("x [a") was taken for
// a flow collection, so the next line's ',' passed. A bracket opens one only where a node starts.
TEST(FuzzFindings, ABracketInsideAPlainScalarOpensNoFlowCollection) {
  EXPECT_EQ(where_and_what("  x [a: 0\n,\n"),
            "s.yaml:2:1 YAML syntax error: a line cannot start with ',' outside a flow sequence "
            "or mapping");
  EXPECT_EQ(where_and_what("   ; - {a: 0\n , e\n"),
            "s.yaml:2:2 YAML syntax error: a line cannot start with ',' outside a flow sequence "
            "or mapping");
  // Flow collections where a node starts keep their multi-line commas.
  EXPECT_EQ(where_and_what("name: a\nseed: [1\n , 2]\n").find("','"), std::string::npos);
  EXPECT_EQ(where_and_what("x:\n  - [1\n , 2]\n").find("','"), std::string::npos);
  EXPECT_EQ(where_and_what("x: &a [1\n , 2]\n").find("','"), std::string::npos);
  EXPECT_EQ(where_and_what("\"a b\": {c: 1\n , d: 2}\n").find("','"), std::string::npos);
}

// Finding 5 (fuzz_sweep, 2026-11-30): yaml-cpp 0.7 never returned on a document that is a quoted
// scalar followed at once by ',' ("\"a\", 2", "'a',"): CI's fuzz run timed out on a 117-byte sweep.
TEST(FuzzFindings, ACommaAfterAQuotedValueOutsideAFlowCollectionIsRefused) {
  EXPECT_EQ(where_and_what("\"a\", 2\n"),
            "s.yaml:1:4 YAML syntax error: a ',' cannot follow a quoted value outside a flow "
            "sequence or mapping (a list is written [\"a\", \"b\"])");
  EXPECT_NE(where_and_what("'a',\n").find("s.yaml:1:4 YAML syntax error: a ',' cannot follow"),
            std::string::npos);
  EXPECT_EQ(where_and_what("---\n\"a\\\"b\", 2]\n").find("s.yaml:2:7"), 0u);
  // Inside a flow collection, and after a key, quoted values keep their commas.
  EXPECT_EQ(where_and_what("name: a\nseed: [\"1\", \"2\"]\n").find("quoted"), std::string::npos);
  EXPECT_EQ(where_and_what("\"a b\": {c: \"1\", d: 2}\n").find("quoted"), std::string::npos);
}

// Finding 2 (fuzz_nccl_tests): a 20-digit element count was clamped to LLONG_MAX by strtoll and
// then multiplied by the type size: signed overflow (UBSan), and an accepted count.
const std::string kHeader =
    "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\n";

std::string nccl_error(const std::string& rows) {
  try {
    parse_nccl_tests_log(kHeader + rows, "n.log", CollectiveOp::kAllReduce);
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(FuzzFindings, NcclCountsBeyondSixtyFourBitsAreRefused) {
  EXPECT_EQ(nccl_error("8 99999999999999999999 float sum -1 20.0 0 0 0 20.0 0 0 0\n"
                       "16 4 float sum -1 21.0 0 0 0 21.0 0 0 0\n"),
            "n.log:2:3: count: expected a non-negative integer, got '99999999999999999999'");
  EXPECT_EQ(nccl_error("8 4611686018427387904 float sum -1 20.0 0 0 0 20.0 0 0 0\n"
                       "16 4 float sum -1 21.0 0 0 0 21.0 0 0 0\n"),
            "n.log:2:3: count 4611686018427387904 x sizeof(float) = more than 2^63 differs from "
            "size 8: this is not an all_reduce log (pass the collective it measured with --op)");
}

TEST(FuzzFindings, NcclTimesThatUnderflowToZeroSecondsAreRefused) {
  EXPECT_EQ(nccl_error("8 2 float sum -1 1e-320 0 0 0 20.0 0 0 0\n"
                       "16 4 float sum -1 21.0 0 0 0 21.0 0 0 0\n"),
            "n.log:2:18: time: expected a positive number of microseconds, got '1e-320'");
}

// Finding 3 (fuzz_nccl_tests): the importer accepted times and sizes beyond what a profile holds
// (1e6 s, 1e18 bytes, 1 s per byte), so `calibrate --import-nccl-tests` wrote a profile that
// could not be read back.
TEST(FuzzFindings, NcclTimesAndSizesAreBoundedLikeAProfile) {
  EXPECT_EQ(nccl_error("8 2 float sum -1 2.5e93 0 0 0 20.0 0 0 0\n"
                       "16 4 float sum -1 21.0 0 0 0 21.0 0 0 0\n"),
            "n.log:2:18: time: at most 1e6 seconds (1e12 us), got 2.5e93 us");
  EXPECT_EQ(nccl_error("8000000000000000000 2000000000000000000 float sum -1 20.0 0 0 0 20 0 0 0\n"
                       "16 4 float sum -1 21.0 0 0 0 21.0 0 0 0\n"),
            "n.log:2:1: size: at most 1e18 bytes, got 8000000000000000000");
}

TEST(FuzzFindings, AnImportedTableSlowerThanOneBytePerSecondIsRefused) {
  const fs::path log = fs::temp_directory_path() / ("ddpsim_slow_" + std::to_string(::getpid()));
  // 5 seconds per byte.
  std::ofstream(log) << kHeader << "1 1 int8 sum -1 5e6 0 0 0 1 0 0 0\n"
                     << "2 2 int8 sum -1 1e7 0 0 0 1 0 0 0\n"
                     << "4 4 int8 sum -1 2e7 0 0 0 1 0 0 0\n";
  try {
    import_nccl_tests(log.string(), CollectiveOp::kAllReduce, AllReduceAlgorithm::kAuto);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().to_string(), log.string());
    EXPECT_NE(e.message().find("more than 1 second per byte (below 1 B/s)"), std::string::npos)
        << e.message();
  }
  fs::remove(log);
}

TEST(Utf8, ValidTextIncludingFourByteCharactersPasses) {
  EXPECT_FALSE(invalid_utf8_offset(""));
  EXPECT_FALSE(invalid_utf8_offset("plain ascii\n"));
  EXPECT_FALSE(invalid_utf8_offset("\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"));  // é € 😀
  EXPECT_FALSE(invalid_utf8_offset("\xF4\x8F\xBF\xBF"));                      // U+10FFFF
}

TEST(Utf8, EveryKindOfInvalidSequenceIsFoundAtItsFirstByte) {
  EXPECT_EQ(invalid_utf8_offset("ab\x80"), 2u);            // lone continuation byte
  EXPECT_EQ(invalid_utf8_offset("a\xC0\xAF"), 1u);         // overlong '/'
  EXPECT_EQ(invalid_utf8_offset("\xE0\x80\xAF"), 0u);      // overlong, three bytes
  EXPECT_EQ(invalid_utf8_offset("x\xED\xA0\x80"), 1u);     // UTF-16 surrogate U+D800
  EXPECT_EQ(invalid_utf8_offset("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(invalid_utf8_offset("ok\xE2\x82"), 2u);        // truncated at the end
  EXPECT_EQ(invalid_utf8_offset("\xC3\x28"), 0u);          // continuation missing
  EXPECT_EQ(invalid_utf8_offset("\xFF"), 0u);
}

}  // namespace
}  // namespace ddpsim
