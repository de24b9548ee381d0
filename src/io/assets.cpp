#include "io/assets.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace sceneria {

namespace fs = std::filesystem;

std::optional<std::string> normalize_asset_path(std::string_view path) {
  if (path.empty() || path[0] == '/' || path[0] == '\\') return std::nullopt;
  if (path.size() >= 2 && path[1] == ':') return std::nullopt;  // C:\..., C:relative
  std::vector<std::string> parts;
  std::string part;
  auto flush = [&]() -> bool {
    if (part == "..") {
      if (parts.empty()) return false;
      parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    part.clear();
    return true;
  };
  for (char c : path) {
    if (c == '/' || c == '\\') {
      if (!flush()) return std::nullopt;
    } else if (c == '\0') {
      return std::nullopt;
    } else {
      part.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
    }
  }
  if (!flush() || parts.empty()) return std::nullopt;
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "/") + p;
  return out;
}

void AssetResolver::note_missing(const std::vector<std::string>& candidates, std::string_view label) {
  if (candidates.empty()) return;
  const std::string name = label.empty() ? candidates.front() : std::string(label);
  if (noted_.emplace(name, true).second) missing_.push_back(name);
}

std::unique_ptr<ByteSource> AssetResolver::open_first(const std::vector<std::string>& candidates, std::string_view label) {
  if (auto source = open_quietly(candidates)) return source;
  note_missing(candidates, label);
  return nullptr;
}

std::unique_ptr<ByteSource> AssetResolver::open_quietly(const std::vector<std::string>& candidates) {
  for (const auto& c : candidates)
    if (auto key = normalize_asset_path(c))
      if (auto source = find(*key)) return source;
  return nullptr;
}

bool AssetResolver::exists_any(const std::vector<std::string>& candidates, std::string_view label) {
  for (const auto& c : candidates)
    if (auto key = normalize_asset_path(c); key && has(*key)) return true;
  note_missing(candidates, label);
  return false;
}

DirectoryAssets::DirectoryAssets(std::string root) : root_(std::move(root)) {}

std::string DirectoryAssets::locate(const std::string& key) {
  // Walk the components, listing each directory once and matching names without case. Symbolic
  // links are not followed out of the root: only regular files and directories listed under it.
  std::string dir = root_;
  std::size_t at = 0;
  while (at <= key.size()) {
    const std::size_t slash = std::min(key.find('/', at), key.size());
    const std::string name = key.substr(at, slash - at);
    auto [it, inserted] = listings_.try_emplace(dir);
    if (inserted) {
      std::error_code ec;
      for (fs::directory_iterator d(dir, ec), end; !ec && d != end; d.increment(ec)) {
        std::string real = d->path().filename().string();
        std::string lower = real;
        for (char& c : lower) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
        it->second.emplace(lower, real);
      }
    }
    auto found = it->second.find(name);
    if (found == it->second.end()) return {};
    dir = (fs::path(dir) / found->second).string();
    std::error_code ec;
    const auto status = fs::symlink_status(dir, ec);
    if (ec || fs::is_symlink(status)) return {};
    if (slash == key.size()) return fs::is_regular_file(status) ? dir : std::string();
    if (!fs::is_directory(status)) return {};
    at = slash + 1;
  }
  return {};
}

std::vector<std::string> DirectoryAssets::listing() {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator d(root_, ec), end; !ec && d != end; d.increment(ec))
    if (d->is_regular_file(ec))
      if (auto key = normalize_asset_path(d->path().filename().string())) out.push_back(*key);
  std::sort(out.begin(), out.end());
  return out;
}

std::unique_ptr<ByteSource> DirectoryAssets::find(const std::string& key) {
  const std::string path = locate(key);
  if (path.empty()) return nullptr;
  auto file = FileSource::open(path);
  if (!file) return nullptr;
  return std::move(file).value();
}

ListedAssets::ListedAssets(const std::vector<std::string>& paths, Reader reader) : reader_(std::move(reader)) {
  for (std::size_t i = 0; i < paths.size(); ++i)
    if (auto key = normalize_asset_path(paths[i])) {
      by_path_.emplace(*key, i);
      // Every trailing run of whole components, so a lookup is one map search however deep the
      // dropped folder is.
      for (std::size_t slash = key->find('/'); slash != std::string::npos; slash = key->find('/', slash + 1))
        by_tail_.emplace(key->substr(slash + 1), i);
    }
}

std::vector<std::string> ListedAssets::listing() {
  std::vector<std::string> out;
  for (const auto& [key, index] : by_path_) out.push_back(key);
  return out;
}

std::optional<std::size_t> ListedAssets::index_of(const std::string& key) const {
  if (auto it = by_path_.find(key); it != by_path_.end()) return it->second;
  // "models/a.t3d" also matches "maszyna/models/a.t3d": the dropped folder may be the game's.
  if (auto it = by_tail_.find(key); it != by_tail_.end()) return it->second;
  return std::nullopt;
}

std::unique_ptr<ByteSource> ListedAssets::find(const std::string& key) {
  auto index = index_of(key);
  return index && reader_ ? reader_(*index) : nullptr;
}

void MemoryAssets::add(std::string_view path, std::vector<std::uint8_t> bytes) {
  if (auto key = normalize_asset_path(path)) files_[*key] = std::move(bytes);
}

std::vector<std::string> MemoryAssets::listing() {
  std::vector<std::string> out;
  for (const auto& [key, bytes] : files_) out.push_back(key);
  return out;
}

std::unique_ptr<ByteSource> MemoryAssets::find(const std::string& key) {
  auto it = files_.find(key);
  if (it == files_.end()) return nullptr;
  return std::make_unique<MemorySource>(std::span<const std::uint8_t>(it->second), it->first);  // borrowed: the map outlives the read
}

}  // namespace sceneria
