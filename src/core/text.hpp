#pragma once
// Text helpers for showing file strings to people: MaSzyna files are CP1250 (Polish Windows),
// newer tools write UTF-8. Display converts; storage never does.
#include <string>
#include <string_view>

namespace sceneria {

bool is_valid_utf8(std::string_view bytes);
// Valid UTF-8 is returned as is; anything else is decoded as Windows-1250.
std::string display_text(std::string_view bytes);

}  // namespace sceneria
