// The one way ddpsim reads a file a user named (scenario, calibration profile, alpha-beta table,
// nccl-tests log, model file, a sweep's results.csv or sweep.json): whatever is at the path, the
// answer is the file's bytes or one InputError located at the path that says what is there.
// A named pipe never blocks (opened non-blocking, then refused), /dev/zero and other devices are
// refused before a byte is read, and no file is read past its size limit, so a mistyped path
// cannot hang ddpsim or exhaust its memory. New loaders read through read_input_file() and get
// the same guard and the provenance record (inputs_read.h) for free.
#pragma once

#include <cstdint>
#include <optional>
#include <streambuf>
#include <string>
#include <vector>

namespace ddpsim {

// What a scenario, profile, table, log or model file may weigh. The largest real ones are
// profiles with per-layer times for many models (a few MB).
constexpr uint64_t kMaxInputFileBytes = uint64_t{64} << 20;
// A sweep's results.csv: a million points of about 1 KB each.
constexpr uint64_t kMaxResultsFileBytes = uint64_t{2} << 30;

// What is at `path` when it is not a regular file (following symbolic links): "a folder",
// "a named pipe (FIFO)", "a character device (like /dev/null, /dev/zero or a terminal)",
// "a block device (a disk)", "a socket"; nullopt for a regular file or nothing at all.
std::optional<std::string> special_file_kind(const std::string& path);

// Reads the whole regular file at `path`, at most `max_bytes` of it. Otherwise throws
// InputError at `path`: "cannot read the <what>: <why>", where why is the system's reason
// (No such file or directory, Permission denied), what the path is instead of a file (a folder,
// a named pipe, a device), or the size limit it exceeds. Does not record anything.
std::string read_regular_file(const std::string& path, const std::string& what,
                              uint64_t max_bytes = kMaxInputFileBytes);

// The same file read a megabyte at a time, for a reader that streams it (a torch.profiler trace
// of up to a gigabyte): the same refusals, at construction (what is at the path, its size) or
// while reading (a file that grows past the limit), as InputError. Not recorded as an input.
class RegularFileReader : public std::streambuf {
 public:
  RegularFileReader(const std::string& path, const std::string& what, uint64_t max_bytes);
  ~RegularFileReader() override;
  RegularFileReader(const RegularFileReader&) = delete;
  RegularFileReader& operator=(const RegularFileReader&) = delete;

 protected:
  int_type underflow() override;

 private:
  std::string path_, what_;
  uint64_t max_bytes_ = 0, read_ = 0;
  int fd_ = -1;
  std::vector<char> buffer_;
};

// The same, and records the file in the inputs-read registry (inputs_read.h) under `role`
// ("scenario", "profile", "alpha_beta_table", "model_file", ...): for every file whose content
// shapes a result, so results.json, results.csv and trace.json can name and digest it.
std::string read_input_file(const std::string& path, const std::string& role,
                            const std::string& what, uint64_t max_bytes = kMaxInputFileBytes);

}  // namespace ddpsim
