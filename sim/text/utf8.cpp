#include "sim/text/utf8.h"

#include <fmt/format.h>

namespace ddpsim {

std::optional<size_t> invalid_utf8_offset(std::string_view text) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = byte(i);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int length = 0;
    unsigned int lowest = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
      lowest = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      lowest = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      lowest = 0x10000;
    } else {
      return i;  // a continuation byte, 0xC0/0xC1 (always overlong) or 0xF5..0xFF
    }
    if (i + length > text.size()) return i;
    unsigned int code = c & (0x7F >> length);
    for (int k = 1; k < length; ++k) {
      if ((byte(i + k) & 0xC0) != 0x80) return i;
      code = (code << 6) | (byte(i + k) & 0x3F);
    }
    if (code < lowest || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return i;
    i += length;
  }
  return std::nullopt;
}

void require_utf8(std::string_view text, const std::string& file) {
  const std::optional<size_t> bad = invalid_utf8_offset(text);
  if (!bad) return;
  int line = 1, column = 1;
  for (size_t i = 0; i < *bad; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++column;  // count characters, not the continuation bytes of a multi-byte one
    }
  }
  throw InputError(SourceLocation{file, line, column},
                   fmt::format("byte 0x{:02X} is not valid UTF-8: save the file as UTF-8 (results "
                               "are JSON, which can carry no other encoding)",
                               static_cast<unsigned char>(text[*bad])));
}

}  // namespace ddpsim
