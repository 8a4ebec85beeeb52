// Text that reaches results.json must be UTF-8 (JSON is; nlohmann::json refuses to write
// anything else), so every text input is checked at the edge, where the error can still say
// file:line:column.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sim/text/input_error.h"

namespace ddpsim {

// Offset of the first byte that does not belong to a valid UTF-8 sequence (overlong forms,
// surrogates and code points above U+10FFFF are invalid), or nullopt when all of `text` is valid.
std::optional<size_t> invalid_utf8_offset(std::string_view text);

// Throws InputError at the first invalid byte of `text` (line and column counted in `text`,
// `file` names it), saying which byte it is and that the file must be saved as UTF-8.
void require_utf8(std::string_view text, const std::string& file);

}  // namespace ddpsim
