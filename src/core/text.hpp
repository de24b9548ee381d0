#pragma once
// Text helpers for showing file strings to people: MaSzyna files are CP1250 (Polish Windows),
// newer tools write UTF-8. Display converts; storage never does.
#include <cstdint>
#include <string>
#include <string_view>

namespace sceneria {

bool is_valid_utf8(std::string_view bytes);
// Valid UTF-8 is returned as is; anything else is decoded as Windows-1250.
std::string display_text(std::string_view bytes);

}  // namespace sceneria

namespace sceneria {

// Windows-1250 bytes -> UTF-8; false if a byte is undefined in the code page (0x81, 0x83, ...).
bool decode_cp1250(std::string_view bytes, std::string& utf8);
// UTF-8 -> Windows-1250 bytes; false if a character has no CP1250 byte or the UTF-8 is invalid.
bool encode_cp1250(std::string_view utf8, std::string& bytes);

// Windows-1251 (Cyrillic, Hard Truck's names) likewise; display_cp1251 never fails (the one
// undefined byte, 0x98, becomes U+FFFD).
bool decode_cp1251(std::string_view bytes, std::string& utf8);
bool encode_cp1251(std::string_view utf8, std::string& bytes);
std::string display_cp1251(std::string_view bytes);

// ASCII case-insensitive comparisons (file extensions, MaSzyna keywords like "none").
bool iequals(std::string_view a, std::string_view b);
bool istarts_with(std::string_view s, std::string_view prefix);
bool iends_with(std::string_view s, std::string_view suffix);
// Whether `needle` occurs in `s`, ASCII case aside (the record browsers' search).
bool icontains(std::string_view s, std::string_view needle);

std::string to_hex(std::string_view bytes);
bool from_hex(std::string_view hex, std::string& bytes);

}  // namespace sceneria
