// yaml-cpp's YAML::Load() returns the first document of a stream and drops the rest without a
// word: `name: a\n---\nname: b` would simulate `a`. Every file and command-line value ddpsim reads
// as YAML goes through these instead, so a second document is an error where it starts.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "sim/text/input_error.h"

namespace ddpsim {

// The one document of `text`. A syntax error propagates as YAML::ParserException (the caller
// words it); a second, non-empty document is an InputError at its first line in `file`, saying
// that a `what` ("scenario file") holds one document. An empty document after a trailing `---`
// drops nothing and is accepted.
YAML::Node load_one_document(const std::string& text, const std::string& file,
                             const std::string& what);

// The same for a value given on the command line (`--set key=value`): a second document is an
// InputError at `where`.
YAML::Node load_one_value(const std::string& text, const SourceLocation& where);

// The InputError for a syntax error yaml-cpp reported in `text` (read from `file`), located at
// its mark and worded "<prefix>: <yaml-cpp's message>" (prefix e.g. "YAML syntax error"). A tab
// in a line's indentation at or before the error is named instead, at that line: yaml-cpp
// reports it as "illegal map value" or "illegal tab when looking for indentation", or at a later
// line, and YAML indents with spaces only.
InputError yaml_syntax_error(const YAML::ParserException& e, const std::string& text,
                             const std::string& file, const std::string& prefix);

// yaml-cpp 0.7 never returns (it loops, allocating) on some streams with a line that starts with
// ',' outside a flow collection (`,a: b`; `  - x` then `,`), or with `[1],[2]`, `{a: 1}, b` or
// `"a", 2` at the top (found by fuzz_sweep and fuzz_profile), and on control bytes such as a NUL
// (read as the end of the stream; fuzz_scenario). None of these is valid YAML: throws
// YAML::ParserException at the offending byte, as the parser would for any other syntax error.
// Every YAML::Load/LoadAll of ddpsim calls this first.
void refuse_yaml_cpp_traps(const std::string& text);

}  // namespace ddpsim
