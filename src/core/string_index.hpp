#pragma once
// An index over a StringTable: the id of a string by its text, the table itself holding the text.
// Open addressing, one 8-byte slot per entry (32 bits of its hash beside its id), so a lookup of
// a string not yet in the table is one probe of a flat array and no string compare, and adding
// one copies no text (a node map copied each name and allocated a node for it: interning a
// million model names was a sixth of a root's compile).
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "core/string_table.hpp"

namespace sceneria {

class StringIndex {
 public:
  static constexpr std::uint32_t kMissing = UINT32_MAX;

  // Room for `count` strings without growing.
  void reserve(std::size_t count) {
    std::size_t want = 16;
    while (want < count * 2) want *= 2;  // at most half full: short probe runs
    if (want > slots_.size()) rehash(want);
  }
  void clear() {
    std::vector<std::uint64_t>().swap(slots_);
    count_ = 0;
  }
  std::size_t size() const { return count_; }

  // Every string of `table` indexed (its first occurrence for a string it holds twice).
  void index_all(const StringTable& table) {
    reserve(count_ + table.size());
    for (std::size_t i = 0; i < table.size(); ++i) {
      const std::string_view s = table[i];
      const std::uint64_t h = hash(s);
      std::size_t at;
      if (!find_slot(table, s, h, at)) put(at, h, static_cast<std::uint32_t>(i));
    }
  }

  // The id of `s` in `table`, or kMissing. `table` must be the one the ids were indexed from.
  std::uint32_t find(const StringTable& table, std::string_view s) const {
    if (slots_.empty()) return kMissing;
    std::size_t at;
    return find_slot(table, s, hash(s), at) ? id_of(slots_[at]) : kMissing;
  }

  // The id of `s`, appended to `table` (and indexed) when it is new. `h`: hash(s), when known.
  std::uint32_t intern(StringTable& table, std::string_view s) { return intern(table, s, hash(s)); }
  std::uint32_t intern(StringTable& table, std::string_view s, std::uint64_t h) {
    if ((count_ + 1) * 2 > slots_.size()) rehash(slots_.empty() ? 16 : slots_.size() * 2);
    std::size_t at;
    if (find_slot(table, s, h, at)) return id_of(slots_[at]);
    const auto id = static_cast<std::uint32_t>(table.size());
    table.push_back(s);
    put(at, h, id);
    return id;
  }

  // Where `s` would be looked up, asked of memory ahead of the intern that will look (a million
  // names interned one after another each wait on a slot far from the last); its hash.
  std::uint64_t prefetch(std::string_view s) const {
    const std::uint64_t h = hash(s);
    if (!slots_.empty()) __builtin_prefetch(&slots_[tag_of(h) & (slots_.size() - 1)]);
    return h;
  }

  // 64-bit, eight bytes a step: names are mostly 8-40 bytes, where a byte-wise hash's chain of
  // multiplies is the cost. Every byte counts (the tail is read as a partial word).
  static std::uint64_t hash(std::string_view s) {
    constexpr std::uint64_t k = 0x9E3779B97F4A7C15ull;
    std::uint64_t h = s.size() * k;
    const char* p = s.data();
    std::size_t n = s.size();
    for (; n >= 8; n -= 8, p += 8) {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      h = mix(h ^ w);
    }
    if (n) {
      std::uint64_t w = 0;
      std::memcpy(&w, p, n);
      h = mix(h ^ w ^ (std::uint64_t{n} << 59));
    }
    return mix(h);
  }

 private:
  static std::uint64_t mix(std::uint64_t x) {
    x *= 0x9E3779B97F4A7C15ull;
    return x ^ (x >> 29);
  }
  // A slot: the hash's high 32 bits, then id + 1 (0: empty).
  static std::uint32_t id_of(std::uint64_t slot) { return static_cast<std::uint32_t>(slot) - 1; }
  static std::uint32_t tag_of(std::uint64_t h) { return static_cast<std::uint32_t>(h >> 32); }

  // Whether `s` is indexed; `at` is its slot, or the empty slot where it would go.
  bool find_slot(const StringTable& table, std::string_view s, std::uint64_t h, std::size_t& at) const {
    const std::size_t mask = slots_.size() - 1;
    const std::uint32_t tag = tag_of(h);
    for (at = tag & mask;; at = (at + 1) & mask) {
      const std::uint64_t slot = slots_[at];
      if (slot == 0) return false;
      if (static_cast<std::uint32_t>(slot >> 32) == tag && table[id_of(slot)] == s) return true;
    }
  }
  void put(std::size_t at, std::uint64_t h, std::uint32_t id) {
    slots_[at] = (std::uint64_t{tag_of(h)} << 32) | (std::uint64_t{id} + 1);
    ++count_;
  }
  // A string's first slot is its tag's low bits, so the slots alone rebuild the table. (Tags of
  // strings meeting in one slot then share those bits, and a false match costs a compare.)
  void rehash(std::size_t size) {
    std::vector<std::uint64_t> old(size, 0);
    old.swap(slots_);
    const std::size_t mask = size - 1;
    for (std::uint64_t slot : old) {
      if (slot == 0) continue;
      std::size_t at = static_cast<std::size_t>(slot >> 32) & mask;
      while (slots_[at] != 0) at = (at + 1) & mask;
      slots_[at] = slot;
    }
  }

  std::vector<std::uint64_t> slots_;  // a power of two of them, or none
  std::size_t count_ = 0;
};

}  // namespace sceneria
