#include "formats/xray/lzhuf.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

namespace sceneria::xray {

namespace {

constexpr int kRing = 4096, kLookahead = 60, kThreshold = 2;
constexpr int kSymbols = 256 - kThreshold + kLookahead;  // literals, then match lengths 3..60
constexpr int kTable = 2 * kSymbols - 1;                  // tree positions; kTable + s names leaf s
constexpr int kRoot = kTable - 1;
constexpr std::uint32_t kMaxFreq = 0x4000;

// The adaptive Huffman tree. Positions are kept sorted by count; an internal position's two
// children sit at child[p] (bit 0) and child[p] + 1 (bit 1), so a position's own bit is its
// parity. Encoder and decoder update it identically after every symbol.
struct Tree {
  std::array<std::uint32_t, kTable + 1> freq{};
  std::array<int, kTable + kSymbols> parent{};
  std::array<int, kTable> child{};

  Tree() {
    for (int s = 0; s < kSymbols; ++s) freq[s] = 1, child[s] = s + kTable, parent[s + kTable] = s;
    for (int i = 0, j = kSymbols; j <= kRoot; i += 2, ++j) {
      freq[j] = freq[i] + freq[i + 1];
      child[j] = i;
      parent[i] = parent[i + 1] = j;
    }
    freq[kTable] = 0xFFFF;  // a sentinel above every count
    parent[kRoot] = 0;
  }

  // Halves every leaf's count and builds the tree again from the leaves.
  void rebuild() {
    int j = 0;
    for (int i = 0; i < kTable; ++i)
      if (child[i] >= kTable) freq[j] = (freq[i] + 1) / 2, child[j] = child[i], ++j;
    for (int i = 0, n = kSymbols; n < kTable; i += 2, ++n) {
      const std::uint32_t f = freq[i] + freq[i + 1];
      int k = n - 1;
      while (f < freq[k]) --k;
      ++k;
      for (int m = n; m > k; --m) freq[m] = freq[m - 1], child[m] = child[m - 1];
      freq[k] = f;
      child[k] = i;
    }
    for (int i = 0; i < kTable; ++i) {
      const int k = child[i];
      if (k >= kTable) parent[k] = i;
      else parent[k] = parent[k + 1] = i;
    }
  }

  // One more of `symbol`: counts up its path, moving a position past equal-or-smaller ones.
  void update(int symbol) {
    if (freq[kRoot] == kMaxFreq) rebuild();
    int c = parent[symbol + kTable];
    do {
      const std::uint32_t k = ++freq[c];
      int l = c + 1;
      if (k > freq[l]) {
        while (k > freq[l + 1]) ++l;
        freq[c] = freq[l];
        freq[l] = k;
        const int i = child[c];
        parent[i] = l;
        if (i < kTable) parent[i + 1] = l;
        const int j = child[l];
        child[l] = i;
        parent[j] = c;
        if (j < kTable) parent[j + 1] = c;
        child[c] = j;
        c = l;
      }
    } while ((c = parent[c]) != 0);
  }
};

// The fixed code of a match distance's upper 6 bits: lengths 3 (1 value), 4 (3), 5 (8), 6 (12),
// 7 (24) and 8 (16), assigned canonically, left-aligned in a byte.
struct UpperCode {
  std::array<std::uint8_t, 64> code{}, length{};
  std::array<std::uint8_t, 256> value_of{}, length_of{};  // by a byte that starts with the code
  UpperCode() {
    constexpr std::array<std::pair<int, int>, 6> kLengths{{{3, 1}, {4, 3}, {5, 8}, {6, 12}, {7, 24}, {8, 16}}};
    int value = 0, next = 0;
    for (const auto& [len, count] : kLengths)
      for (int k = 0; k < count; ++k, ++value) {
        code[value] = static_cast<std::uint8_t>(next);
        length[value] = static_cast<std::uint8_t>(len);
        for (int b = 0; b < (1 << (8 - len)); ++b) value_of[next + b] = static_cast<std::uint8_t>(value), length_of[next + b] = static_cast<std::uint8_t>(len);
        next += 1 << (8 - len);
      }
  }
};
const UpperCode& upper_code() {
  static const UpperCode c;
  return c;
}

class BitReader {
 public:
  explicit BitReader(std::span<const std::uint8_t> in) : in_(in) {}
  int bit() {
    if (left_ == 0) {
      word_ = at_ < in_.size() ? in_[at_] : 0;
      past_end_ += at_ >= in_.size();
      ++at_;
      left_ = 8;
    }
    --left_;
    return (word_ >> left_) & 1;
  }
  int bits(int n) {
    int v = 0;
    while (n--) v = (v << 1) | bit();
    return v;
  }
  std::size_t past_end() const { return past_end_; }
  std::size_t consumed() const { return at_; }

 private:
  std::span<const std::uint8_t> in_;
  std::size_t at_ = 0, past_end_ = 0;
  std::uint32_t word_ = 0;
  int left_ = 0;
};

class BitWriter {
 public:
  void put(std::uint32_t value, int n) {  // the low n bits of value, highest first
    while (n--) {
      acc_ = static_cast<std::uint8_t>((acc_ << 1) | ((value >> n) & 1));
      if (++filled_ == 8) out_.push_back(acc_), acc_ = 0, filled_ = 0;
    }
  }
  std::vector<std::uint8_t> finish() {
    if (filled_) out_.push_back(static_cast<std::uint8_t>(acc_ << (8 - filled_)));
    return std::move(out_);
  }

 private:
  std::vector<std::uint8_t> out_;
  std::uint8_t acc_ = 0;
  int filled_ = 0;
};

}  // namespace

Result<std::vector<std::uint8_t>> lzhuf_decode(std::span<const std::uint8_t> packed, std::uint64_t size, std::uint64_t at) {
  // A bit codes at most 60 bytes (a match), a byte at most 8 of them: anything more is not LZHUF.
  if (size > (std::uint64_t{packed.size()} + 8) * 8 * kLookahead)
    return Error{Errc::bad_count, at, fmt::format("LZHUF stream at {:#x}: {} bytes cannot unpack to the {} it claims", at, packed.size(), size)};
  std::vector<std::uint8_t> out;
  out.reserve(static_cast<std::size_t>(size));
  std::array<std::uint8_t, kRing> ring;
  ring.fill(' ');
  int r = kRing - kLookahead;
  Tree tree;
  BitReader in(packed);
  const UpperCode& upper = upper_code();
  while (out.size() < size) {
    // The editor's reader runs on zero bits past the end; a real stream needs at most a few.
    if (in.past_end() > 4)
      return Error{Errc::truncated, at + packed.size(),
                   fmt::format("LZHUF stream at {:#x}: its {} bytes end after {} of the {} bytes it claims", at, packed.size(), out.size(), size)};
    int c = tree.child[kRoot];
    while (c < kTable) c = tree.child[c + in.bit()];
    c -= kTable;
    tree.update(c);
    if (c < 256) {
      out.push_back(static_cast<std::uint8_t>(c));
      ring[static_cast<std::size_t>(r)] = static_cast<std::uint8_t>(c);
      r = (r + 1) & (kRing - 1);
      continue;
    }
    // A match: the distance's upper 6 bits by their code, then the lower 6 as they are.
    const int first = in.bits(8);
    const int len = upper.length_of[static_cast<std::size_t>(first)];
    const int low = ((first << (len - 2)) | in.bits(len - 2)) & 0x3F;
    const int distance = (upper.value_of[static_cast<std::size_t>(first)] << 6 | low) + 1;
    const int from = (r - distance) & (kRing - 1);
    const int count = c - 255 + kThreshold;
    for (int k = 0; k < count && out.size() < size; ++k) {
      const std::uint8_t b = ring[static_cast<std::size_t>((from + k) & (kRing - 1))];
      out.push_back(b);
      ring[static_cast<std::size_t>(r)] = b;
      r = (r + 1) & (kRing - 1);
    }
  }
  return out;
}

std::vector<std::uint8_t> lzhuf_encode(std::span<const std::uint8_t> bytes) {
  constexpr std::size_t kHashSize = 1 << 14, kMaxChain = 128;
  constexpr std::size_t kMaxDistance = kRing - kLookahead;
  constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  std::vector<std::uint32_t> head(kHashSize, kNone), previous(bytes.size(), kNone);
  const auto hash = [&](std::size_t p) {
    return ((std::size_t{bytes[p]} << 10) ^ (std::size_t{bytes[p + 1]} << 5) ^ bytes[p + 2]) & (kHashSize - 1);
  };
  const auto insert = [&](std::size_t p) {
    if (p + 3 > bytes.size()) return;
    const std::size_t h = hash(p);
    previous[p] = head[h];
    head[h] = static_cast<std::uint32_t>(p);
  };

  Tree tree;
  BitWriter out;
  const UpperCode& upper = upper_code();
  // A symbol's code: the parities of its positions from its leaf up to the root, sent root first.
  std::array<std::uint8_t, kTable> path{};
  const auto put_symbol = [&](int symbol) {
    int n = 0;
    for (int k = tree.parent[static_cast<std::size_t>(symbol + kTable)]; k != kRoot; k = tree.parent[static_cast<std::size_t>(k)])
      path[static_cast<std::size_t>(n++)] = static_cast<std::uint8_t>(k & 1);
    while (n--) out.put(path[static_cast<std::size_t>(n)], 1);
    tree.update(symbol);
  };

  for (std::size_t p = 0; p < bytes.size();) {
    std::size_t best = 0, best_distance = 0;
    if (p + 3 <= bytes.size()) {
      const std::size_t limit = std::min<std::size_t>(kLookahead, bytes.size() - p);
      std::size_t chain = 0;
      for (std::uint32_t q = head[hash(p)]; q != kNone && p - q <= kMaxDistance && chain < kMaxChain; q = previous[q], ++chain) {
        std::size_t n = 0;
        while (n < limit && bytes[q + n] == bytes[p + n]) ++n;
        if (n > best) best = n, best_distance = p - q;
        if (n == limit) break;
      }
    }
    if (best > static_cast<std::size_t>(kThreshold)) {
      put_symbol(static_cast<int>(255 - kThreshold + best));
      const std::size_t value = best_distance - 1;
      const std::size_t u = value >> 6;
      out.put(upper.code[u] >> (8 - upper.length[u]), upper.length[u]);
      out.put(static_cast<std::uint32_t>(value & 0x3F), 6);
      for (std::size_t k = 0; k < best; ++k) insert(p + k);
      p += best;
    } else {
      put_symbol(bytes[p]);
      insert(p);
      ++p;
    }
  }
  return out.finish();
}

}  // namespace sceneria::xray
