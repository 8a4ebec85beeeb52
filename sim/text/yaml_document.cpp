#include "sim/text/yaml_document.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <vector>

namespace ddpsim {
namespace {

// Index of the first document after the first that holds anything, or 0.
size_t second_document(const std::vector<YAML::Node>& documents) {
  for (size_t i = 1; i < documents.size(); ++i)
    if (documents[i].IsDefined() && !documents[i].IsNull()) return i;
  return 0;
}

// The parser's own exception, at byte `at` (on 0-based `line`) of `text`.
YAML::ParserException syntax_error(const std::string& text, size_t at, int line,
                                   const std::string& message) {
  const size_t bol = text.rfind('\n', at);
  YAML::Mark mark;
  mark.pos = static_cast<int>(at);
  mark.line = line;
  mark.column = static_cast<int>(bol == std::string::npos ? at : at - bol - 1);
  return YAML::ParserException(mark, message);
}

}  // namespace

void refuse_yaml_cpp_traps(const std::string& text) {
  // A small scanner: quotes (a quote opens a scalar only where a token can start), comments and
  // the depth of flow collections, so that the commas of a multi-line [a,\n , b] pass.
  // Characters first, wherever they stand (comments and quoted scalars included).
  for (size_t i = 0, line = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') ||
        c == 0x7f) {
      // Not printable YAML (1.2, c-printable); yaml-cpp reads a NUL as the end of the stream.
      throw syntax_error(text, i, static_cast<int>(line),
                         fmt::format("control character 0x{:02x} (YAML allows tab, CR and LF only)",
                                     static_cast<unsigned char>(c)));
    }
    // yaml-cpp 0.7 never returned on some streams with a lone CR (an old Mac line break).
    if (c == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))
      throw syntax_error(text, i, static_cast<int>(line),
                         "a carriage return not followed by a line feed; save the file with LF or "
                         "CRLF line endings");
  }
  int depth = 0, line = 0;
  char quote = 0;
  bool line_start = true, token_start = true;
  bool in_name = false;      // inside an anchor (&a) or alias (*a) name
  bool after_flow = false;   // the last token closed a flow collection at depth 0
  bool after_quote = false;  // the last token closed a quoted scalar at depth 0
  bool node_start = true;    // at depth 0, a node may start here: line start, after ': ', '- '
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = token_start = true;
      in_name = false;
      after_flow = after_quote = false;
      node_start = true;
      continue;
    }
    if (quote) {
      if (c == '\\' && quote == '"') {
        ++i;
      } else if (c == quote && quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
        ++i;  // '' is a quote inside a single-quoted scalar
      } else if (c == quote) {
        quote = 0;
        after_quote = depth == 0;
      }
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      token_start = true;
      in_name = false;
      continue;
    }
    // An anchor or alias name ends at a space (or, inside a flow collection, at a flow
    // indicator); outside one a flow indicator cannot follow it, and yaml-cpp 0.7 never returned
    // on "&a,".
    if (in_name && depth == 0 && (c == ',' || c == '[' || c == ']' || c == '{' || c == '}'))
      throw syntax_error(text, i, line,
                         std::string("an anchor or alias name cannot contain '") + c + "'");
    if ((c == '&' || c == '*') && token_start) in_name = true;
    if (c == '#' && token_start) {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    // Outside a flow collection only ':' or a comment may follow a quoted value on its line;
    // yaml-cpp 0.7 never returned on '"a", 2' or '"""", 2]' (fuzz_sweep).
    if (after_quote && c != ':')
      throw syntax_error(text, i, line,
                         c == ','
                             ? "a ',' cannot follow a quoted value outside a flow sequence or "
                               "mapping (a list is written [\"a\", \"b\"])"
                             : fmt::format("'{}' cannot follow a quoted value on its line (only "
                                           "':' or a comment can)",
                                           c));
    if (c == ',' && depth == 0 && (line_start || after_flow || token_start)) {
      throw syntax_error(
          text, i, line,
          line_start   ? "a line cannot start with ',' outside a flow sequence or mapping"
          : after_flow ? "a ',' cannot follow a flow sequence or mapping outside another"
                       : "a value cannot start with ',' outside a flow sequence or mapping");
    }
    // Tags: ddpsim's files have no use for them, and yaml-cpp 0.7 never returned on "!,".
    if (c == '!' && token_start)
      throw syntax_error(text, i, line,
                         "YAML tags ('!') are not used in ddpsim's files; quote a value that "
                         "starts with '!'");
    if ((c == '\'' || c == '"') && token_start) quote = c;
    // A bracket opens a flow collection where a node starts (the line's first token, or after
    // ':', or after a '-' or '?' that is itself an indicator) or inside one; elsewhere it is a
    // character of a plain scalar ("s[0]", "x [a", "; - {a"). Counting "x [a" as a flow
    // collection let a later line's ',' through, on which yaml-cpp 0.7 never returned and grew
    // without bound ("   x [a: 0\n,": 24 GB in 50 s).
    const bool opens = (c == '[' || c == '{') && (depth > 0 || (token_start && node_start));
    if (opens) ++depth;
    if (depth == 0 && !in_name)
      node_start = c == ':' || ((c == '-' || c == '?') && token_start && node_start);
    after_flow = after_quote = false;
    if ((c == ']' || c == '}') && depth > 0 && --depth == 0) after_flow = true;
    line_start = false;
    token_start = c == '[' || c == '{' || c == ',' || c == ':' || c == '-' || c == '?';
  }
}

YAML::Node load_one_document(const std::string& text, const std::string& file,
                             const std::string& what) {
  refuse_yaml_cpp_traps(text);
  const std::vector<YAML::Node> documents = YAML::LoadAll(text);
  if (documents.empty()) return YAML::Node();
  if (const size_t extra = second_document(documents)) {
    const YAML::Mark mark = documents[extra].Mark();
    const SourceLocation where = mark.is_null()
                                     ? SourceLocation{file, 0, 0}
                                     : SourceLocation{file, mark.line + 1, mark.column + 1};
    throw InputError(where, "a second YAML document starts here (after '---'), but a " + what +
                                " holds one document; put each document in a file of its own");
  }
  return documents.front();
}

YAML::Node load_one_value(const std::string& text, const SourceLocation& where) {
  refuse_yaml_cpp_traps(text);
  const std::vector<YAML::Node> documents = YAML::LoadAll(text);
  if (documents.empty()) return YAML::Node();
  if (second_document(documents)) {
    throw InputError(where,
                     "the value holds more than one YAML document (a line starting with "
                     "'---'); give one value, and quote it if '---' belongs to it");
  }
  return documents.front();
}

InputError yaml_syntax_error(const YAML::ParserException& e, const std::string& text,
                             const std::string& file, const std::string& prefix) {
  const int error_line = e.mark.line + 1;
  int line = 1;
  for (size_t at = 0; at < text.size() && line <= error_line; ++line) {
    const size_t end = std::min(text.find('\n', at), text.size());
    const size_t first = text.find_first_not_of(" \t", at);
    if (first != std::string::npos && first < end && text[first] != '#') {
      const size_t tab = text.find('\t', at);
      if (tab < first)
        return InputError(SourceLocation{file, line, static_cast<int>(tab - at) + 1},
                          prefix +
                              ": a tab in the indentation; YAML indents with spaces only "
                              "(replace the tab with spaces)");
    }
    at = end + 1;
  }
  return InputError(SourceLocation{file, error_line, e.mark.column + 1}, prefix + ": " + e.msg);
}

}  // namespace ddpsim
