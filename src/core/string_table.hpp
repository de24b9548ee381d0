#pragma once
// A table of byte strings stored in one blob. Strings keep their exact bytes (MaSzyna names are
// often CP1250, not UTF-8); conversion for display happens at the edges (core/text.hpp).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sceneria {

class StringTable {
 public:
  void reserve(std::size_t count, std::size_t bytes) {
    ends_.reserve(count);
    blob_.reserve(bytes);
  }
  void push_back(std::string_view s) {
    blob_.append(s);
    ends_.push_back(static_cast<std::uint32_t>(blob_.size()));
  }
  std::size_t size() const { return ends_.size(); }
  bool empty() const { return ends_.empty(); }
  std::string_view operator[](std::size_t i) const {
    const std::uint32_t begin = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(blob_).substr(begin, ends_[i] - begin);
  }
  std::size_t byte_size() const { return blob_.size(); }

 private:
  std::string blob_;
  std::vector<std::uint32_t> ends_;  // one past each string's last byte
};

}  // namespace sceneria
