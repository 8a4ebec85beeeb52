// units.h: every unit's exact factor, spacing, the errors users see, and format/parse round
// trips.
#include "sim/text/units.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace ddpsim::units {
namespace {

struct UnitCase {
  const char* text;
  Kind kind;
  double expected;
};

const std::vector<UnitCase>& every_unit() {
  static const std::vector<UnitCase> cases = {
      {"3B", Kind::kBytes, 3},
      {"3KB", Kind::kBytes, 3e3},
      {"3MB", Kind::kBytes, 3e6},
      {"3GB", Kind::kBytes, 3e9},
      {"3TB", Kind::kBytes, 3e12},
      {"3KiB", Kind::kBytes, 3.0 * 1024},
      {"3MiB", Kind::kBytes, 3.0 * 1024 * 1024},
      {"3GiB", Kind::kBytes, 3.0 * 1024 * 1024 * 1024},
      {"3TiB", Kind::kBytes, 3.0 * 1024 * 1024 * 1024 * 1024},
      {"3B/s", Kind::kBandwidth, 3},
      {"3KB/s", Kind::kBandwidth, 3e3},
      {"3MB/s", Kind::kBandwidth, 3e6},
      {"3GB/s", Kind::kBandwidth, 3e9},
      {"3TB/s", Kind::kBandwidth, 3e12},
      {"3KiB/s", Kind::kBandwidth, 3.0 * 1024},
      {"3MiB/s", Kind::kBandwidth, 3.0 * 1024 * 1024},
      {"3GiB/s", Kind::kBandwidth, 3.0 * 1024 * 1024 * 1024},
      {"8bps", Kind::kBandwidth, 1},
      {"8Kbps", Kind::kBandwidth, 1e3},
      {"8Mbps", Kind::kBandwidth, 1e6},
      {"8Gbps", Kind::kBandwidth, 1e9},
      {"8Tbps", Kind::kBandwidth, 1e12},
      {"3ns", Kind::kDuration, 3e-9},
      {"3us", Kind::kDuration, 3e-6},
      {"3ms", Kind::kDuration, 3e-3},
      {"3s", Kind::kDuration, 3},
      {"3min", Kind::kDuration, 180},
      {"3FLOPS", Kind::kFlopRate, 3},
      {"3GFLOPS", Kind::kFlopRate, 3e9},
      {"3TFLOPS", Kind::kFlopRate, 3e12},
      {"3PFLOPS", Kind::kFlopRate, 3e15},
  };
  return cases;
}

double parsed_value(std::string_view text, Kind kind, bool allow_bare = false) {
  Parsed p = parse(text, kind, allow_bare);
  EXPECT_TRUE(p.value.has_value()) << text << ": " << p.error;
  EXPECT_TRUE(p.error.empty()) << text;
  return p.value.value_or(std::nan(""));
}

std::string parse_error(std::string_view text, Kind kind, bool allow_bare = false) {
  Parsed p = parse(text, kind, allow_bare);
  EXPECT_FALSE(p.value.has_value()) << text << " parsed as " << p.value.value_or(0);
  return p.error;
}

TEST(Units, EveryUnitHasItsExactFactor) {
  for (const UnitCase& c : every_unit()) {
    EXPECT_DOUBLE_EQ(parsed_value(c.text, c.kind), c.expected) << c.text;
  }
}

TEST(Units, EveryUnitIsListedInTheAllowedUnitsOfItsKind) {
  for (const UnitCase& c : every_unit()) {
    std::string suffix(c.text + 1);  // every case is one digit then the unit
    std::string list = ", " + allowed_units(c.kind) + ",";
    EXPECT_NE(list.find(", " + suffix + ","), std::string::npos) << suffix;
  }
  EXPECT_EQ(allowed_units(Kind::kBytes), "B, KB, MB, GB, TB, KiB, MiB, GiB, TiB");
  EXPECT_EQ(allowed_units(Kind::kDuration), "ns, us, ms, s, min");
  EXPECT_EQ(allowed_units(Kind::kFlopRate), "FLOPS, GFLOPS, TFLOPS, PFLOPS");
}

TEST(Units, SpacesBetweenNumberAndUnitAndAroundAreAccepted) {
  EXPECT_DOUBLE_EQ(parsed_value("25 MiB", Kind::kBytes), 25.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(parsed_value("25  MiB", Kind::kBytes), 25.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(parsed_value("  200 Gbps ", Kind::kBandwidth), 25e9);
  EXPECT_DOUBLE_EQ(parsed_value("1.5 us", Kind::kDuration), 1.5e-6);
}

TEST(Units, DecimalExponentAndSignedNumbersParse) {
  EXPECT_DOUBLE_EQ(parsed_value("0.5GB", Kind::kBytes), 5e8);
  EXPECT_DOUBLE_EQ(parsed_value(".5GB", Kind::kBytes), 5e8);
  EXPECT_DOUBLE_EQ(parsed_value("5.GB", Kind::kBytes), 5e9);
  EXPECT_DOUBLE_EQ(parsed_value("1e3MB", Kind::kBytes), 1e9);
  EXPECT_DOUBLE_EQ(parsed_value("2.5E-1 s", Kind::kDuration), 0.25);
  EXPECT_DOUBLE_EQ(parsed_value("+4KB", Kind::kBytes), 4e3);
  EXPECT_EQ(parsed_value("0B", Kind::kBytes), 0.0);
  EXPECT_FALSE(std::signbit(parsed_value("-0ms", Kind::kDuration)));
}

TEST(Units, BareNumbersOnlyWhereAllowedAndThenInTheBaseUnit) {
  std::string error = parse_error("32", Kind::kBandwidth);
  EXPECT_NE(error.find("missing unit in '32'"), std::string::npos) << error;
  EXPECT_NE(error.find("GB/s"), std::string::npos) << error;
  EXPECT_NE(error.find("Gbps"), std::string::npos) << error;
  EXPECT_DOUBLE_EQ(parsed_value("32", Kind::kBandwidth, true), 32);
  EXPECT_DOUBLE_EQ(parsed_value("1.5", Kind::kDuration, true), 1.5);
}

TEST(Units, UnitsAreCaseSensitiveAndTheErrorSaysSo) {
  std::string error = parse_error("25Mb", Kind::kBytes);
  EXPECT_NE(error.find("unknown unit 'Mb'"), std::string::npos) << error;
  EXPECT_NE(error.find("case-sensitive"), std::string::npos) << error;
  EXPECT_NE(error.find("did you mean 'MB'"), std::string::npos) << error;
  EXPECT_NE(error.find("B, KB, MB, GB, TB, KiB, MiB, GiB, TiB"), std::string::npos) << error;

  EXPECT_NE(parse_error("2US", Kind::kDuration).find("did you mean 'us'"), std::string::npos);
  EXPECT_NE(parse_error("1gbps", Kind::kBandwidth).find("'Gbps' (gigabits per second)"),
            std::string::npos);
  EXPECT_NE(parse_error("312tflops", Kind::kFlopRate).find("did you mean 'TFLOPS'"),
            std::string::npos);
}

TEST(Units, BitsPerSecondParseAsDatasheetsWriteThem) {
  // "400 Gb/s" is how the README's prose and NIC datasheets write a port; it was refused.
  for (const char* text : {"400Gbps", "400Gb/s", "400 Gb/s", "400Gbit/s", "400 Gbit/s"})
    EXPECT_DOUBLE_EQ(parsed_value(text, Kind::kBandwidth), 50e9) << text;
  EXPECT_DOUBLE_EQ(parsed_value("25 GB/s", Kind::kBandwidth), 25e9);
  EXPECT_DOUBLE_EQ(parsed_value("2GiB/s", Kind::kBandwidth), 2.0 * 1073741824.0);
  EXPECT_DOUBLE_EQ(parsed_value("100Mb/s", Kind::kBandwidth), 12.5e6);
}

TEST(Units, AnAmbiguousUnitOffersBothBitsAndBytesWithTheirMeaning) {
  // `50GBps` was answered "did you mean 'Gbps'?" alone: an 8x error if followed.
  std::string error = parse_error("50GBps", Kind::kBandwidth);
  EXPECT_NE(error.find("'GB/s' (gigabytes per second)"), std::string::npos) << error;
  EXPECT_NE(error.find("'Gbps' (gigabits per second)"), std::string::npos) << error;
  error = parse_error("2GiBps", Kind::kBandwidth);
  EXPECT_NE(error.find("'GiB/s' (gibibytes per second)"), std::string::npos) << error;
}

TEST(Units, AUnitOfAnotherKindIsNamedAsSuch) {
  std::string error = parse_error("25MB/s", Kind::kBytes);
  EXPECT_NE(error.find("'MB/s' is a bandwidth unit, but a size is expected"), std::string::npos)
      << error;
  error = parse_error("2GB", Kind::kBandwidth);
  EXPECT_NE(error.find("'GB' is a size unit, but a bandwidth is expected"), std::string::npos)
      << error;
  error = parse_error("5ms", Kind::kFlopRate);
  EXPECT_NE(error.find("'ms' is a duration unit"), std::string::npos) << error;
}

TEST(Units, UnknownSuffixAndTrailingJunkAreRejected) {
  for (const char* text : {"25MiBx", "25 MiB s", "25MiB/s/s", "25 Mi B", "25furlongs"}) {
    std::string error = parse_error(text, Kind::kBytes);
    EXPECT_NE(error.find("unknown unit"), std::string::npos) << text << ": " << error;
    EXPECT_NE(error.find("KiB"), std::string::npos) << text << ": " << error;
  }
}

TEST(Units, TextWithoutANumberIsRejected) {
  for (const char* text : {"MiB", "", "   ", "fast", "e5MB", ".MB", "-MB"}) {
    std::string error = parse_error(text, Kind::kBytes);
    EXPECT_NE(error.find("expected a size"), std::string::npos) << text << ": " << error;
  }
}

TEST(Units, NanInfinityAndOverflowAreRejectedForEveryKind) {
  for (Kind kind : {Kind::kBytes, Kind::kBandwidth, Kind::kDuration, Kind::kFlopRate}) {
    for (const char* text : {"nan", "NaN", ".nan", "inf", "-inf", ".inf", "Infinity", "infGB"}) {
      EXPECT_NE(parse_error(text, kind, true).find("not a finite number"), std::string::npos)
          << text;
    }
    EXPECT_NE(parse_error("1e400", kind, true).find("out of range"), std::string::npos);
  }
  // Finite number, infinite product.
  EXPECT_NE(parse_error("1e300TB", Kind::kBytes).find("out of range"), std::string::npos);
}

TEST(Units, NegativeQuantitiesAreRejectedForEveryKind) {
  EXPECT_NE(parse_error("-1MB", Kind::kBytes).find("negative"), std::string::npos);
  EXPECT_NE(parse_error("-10Gbps", Kind::kBandwidth).find("negative"), std::string::npos);
  EXPECT_NE(parse_error("-2us", Kind::kDuration).find("negative"), std::string::npos);
  EXPECT_NE(parse_error("-1TFLOPS", Kind::kFlopRate).find("negative"), std::string::npos);
  EXPECT_NE(parse_error("-3", Kind::kBytes, true).find("negative"), std::string::npos);
}

TEST(Units, FormatPicksTheLargestUnitAndThreeSignificantDigits) {
  EXPECT_EQ(format_bytes(25.0 * 1024 * 1024), "25.0 MiB");
  EXPECT_EQ(format_bytes(40.0 * 1024 * 1024 * 1024), "40.0 GiB");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(0), "0.00 B");
  EXPECT_EQ(format_bandwidth(25e9), "25.0 GB/s");
  EXPECT_EQ(format_bandwidth(1.5e12), "1.50 TB/s");
  EXPECT_EQ(format_duration(1.234e-3), "1.23 ms");
  EXPECT_EQ(format_duration(2e-6), "2.00 us");
  EXPECT_EQ(format_duration(0.5e-9), "0.50 ns");
  EXPECT_EQ(format_duration(90), "1.50 min");
  EXPECT_EQ(format_flops(312e12), "312 TFLOPS");
  EXPECT_EQ(format_flops(19.5e12), "19.5 TFLOPS");
  EXPECT_EQ(format_flops(2e15), "2.00 PFLOPS");
  EXPECT_EQ(format_duration(-1.5e-3), "-1.50 ms");
}

// Rates (samples/s) below 100 keep three significant digits: "2 sequences/s" said nothing about
// 1.5 or 2.49. From 100 up, whole numbers with thousands separators (issue 25).
TEST(Units, RatesBelowAHundredPrintThreeSignificantDigits) {
  EXPECT_EQ(format_rate(12.34), "12.3");
  EXPECT_EQ(format_rate(2.1), "2.10");
  EXPECT_EQ(format_rate(0.4567), "0.457");
  EXPECT_EQ(format_rate(0.012345), "0.0123");
  EXPECT_EQ(format_rate(99.94), "99.9");
  EXPECT_EQ(format_rate(9.996), "10.0");  // rounds up a decade: still three digits
  EXPECT_EQ(format_rate(99.96), "100");
  EXPECT_EQ(format_rate(100), "100");
  EXPECT_EQ(format_rate(1846.4), "1,846");
  EXPECT_EQ(format_rate(58534.2), "58,534");
  EXPECT_EQ(format_rate(1234567), "1,234,567");
  EXPECT_EQ(format_rate(0), "0");
}

// Sizes never switch family with divisibility: 25 MB and 25 MiB print in the same unit, so a table
// compares them at a glance (issue 15).
TEST(Units, SizesArePrintedInBinaryUnitsWhateverTheirDivisibility) {
  EXPECT_EQ(format_bytes(25e6), "23.8 MiB");
  EXPECT_EQ(format_bytes(25.0 * 1024 * 1024 + 1), "25.0 MiB");
  EXPECT_EQ(format_bytes(110e3), "107 KiB");
  EXPECT_EQ(format_bytes(1e9), "954 MiB");
  EXPECT_EQ(format_bytes(4.46e9), "4.15 GiB");
  EXPECT_EQ(format_bytes(2e12), "1.82 TiB");
  for (double v = 1; v < 1e15; v *= 1.9) {
    const std::string text = format_bytes(v);
    EXPECT_EQ(text.find("KB"), std::string::npos) << text;
    EXPECT_EQ(text.find("MB"), std::string::npos) << text;
    EXPECT_EQ(text.find("GB"), std::string::npos) << text;
    EXPECT_EQ(text.find("TB"), std::string::npos) << text;
  }
}

TEST(Units, FormattedValuesParseBackWithinTheirPrecision) {
  // From one of the smallest unit up: below it, three digits of the smallest unit are all
  // that is printed.
  std::vector<double> values;
  for (double v = 1; v < 1e16; v *= 3.7) values.push_back(v);
  for (double exact : {1024.0, 25.0 * 1024 * 1024, 4e6, 150528.0, 1e9, 300e9}) {
    values.push_back(exact);
  }
  for (double v : values) {
    struct {
      std::string text;
      Kind kind;
    } forms[] = {{format_bytes(v), Kind::kBytes},
                 {format_bandwidth(v), Kind::kBandwidth},
                 {format_duration(v * 1e-9), Kind::kDuration},
                 {format_flops(v), Kind::kFlopRate}};
    double originals[] = {v, v, v * 1e-9, v};
    for (int i = 0; i < 4; ++i) {
      double back = parsed_value(forms[i].text, forms[i].kind);
      // Three significant digits: at most half a unit in the third digit.
      EXPECT_NEAR(back, originals[i], originals[i] * 5e-3) << forms[i].text;
    }
  }
  // Whole binary sizes come back exactly.
  EXPECT_EQ(parsed_value(format_bytes(25.0 * 1024 * 1024), Kind::kBytes), 25.0 * 1024 * 1024);
}

}  // namespace
}  // namespace ddpsim::units
