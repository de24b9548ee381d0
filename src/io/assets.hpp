#pragma once
// Files a document refers to (includes, models, textures, resource files), opened by the path the
// document gives, from wherever the user's files are: a dropped folder or several dropped files
// (ListedAssets), a directory on disk (DirectoryAssets, the CLI), or nowhere (NoAssets). Readers
// see only this interface, as they see only ByteSource for their own bytes.
//
// Paths are relative to a root; `\` and `/` both separate; matching ignores ASCII case, because
// sceneries are made on Windows and name "Models/Drzewa/Sosna.T3D" for "models/drzewa/sosna.t3d".
// Absolute paths and `..` that would climb above the root are refused: a file cannot make us read
// outside the folder the user gave. Files that cannot be found are collected (missing()), never
// fatal: the document shows what it has and the page lists the rest.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "io/byte_source.hpp"

namespace sceneria {

// "models/a.t3d" from "Models\\A.t3d" or "./x/../Models//a.t3d" (lower-cased); nullopt for an
// absolute path, a drive letter or a `..` above the root.
std::optional<std::string> normalize_asset_path(std::string_view path);

class AssetResolver {
 public:
  virtual ~AssetResolver() = default;
  // The first candidate that exists, opened; nullptr if none does. Every candidate missing is
  // recorded once under the first candidate's name (what the document asked for).
  std::unique_ptr<ByteSource> open_first(const std::vector<std::string>& candidates, std::string_view label = {});
  // The same without recording a miss: for a probe whose failure is not a missing file (a
  // material tried before its texture).
  std::unique_ptr<ByteSource> open_quietly(const std::vector<std::string>& candidates);
  // `label` names the missing file in missing() (default: the first candidate).
  bool exists_any(const std::vector<std::string>& candidates, std::string_view label = {});
  std::unique_ptr<ByteSource> open(std::string_view path) { return open_first({std::string(path)}); }
  // What was asked for and not found, in the order first asked, each once.
  const std::vector<std::string>& missing() const { return missing_; }
  // Every file it can give, normalized, where it can say: dropped files and files in memory all,
  // a directory the files directly in its root. A viewer finds skin sets ("name,1.dds") by it.
  virtual std::vector<std::string> listing() { return {}; }
  // Files the caller has taken in already, by ByteSource::name() (the texture files an earlier
  // model brought): a reader may leave them undecoded. Null: none. Not owned.
  void set_known(const std::unordered_set<std::string>* known) { known_ = known; }
  bool known(const std::string& name) const { return known_ && known_->count(name) != 0; }

 protected:
  // `key` is normalized (lower case, `/`): the source, or nullptr if there is no such file.
  virtual std::unique_ptr<ByteSource> find(const std::string& key) = 0;
  virtual bool has(const std::string& key) = 0;

 private:
  void note_missing(const std::vector<std::string>& candidates, std::string_view label = {});
  std::vector<std::string> missing_;
  std::map<std::string, bool> noted_;
  const std::unordered_set<std::string>* known_ = nullptr;
};

// Nothing beside the document itself (a single dropped file, a URL without a folder).
class NoAssets final : public AssetResolver {
 protected:
  std::unique_ptr<ByteSource> find(const std::string&) override { return nullptr; }
  bool has(const std::string&) override { return false; }
};

// A directory on disk (the CLI): files under `root` only, names matched ignoring case.
class DirectoryAssets final : public AssetResolver {
 public:
  explicit DirectoryAssets(std::string root);
  const std::string& root() const { return root_; }
  std::vector<std::string> listing() override;

 protected:
  std::unique_ptr<ByteSource> find(const std::string& key) override;
  bool has(const std::string& key) override { return !locate(key).empty(); }

 private:
  std::string locate(const std::string& key);  // the real path on disk, or ""
  std::string root_;
  std::map<std::string, std::map<std::string, std::string>> listings_;  // dir -> lower name -> real name
};

// Files the user dropped or picked, by the relative paths the browser gives them
// ("MaSzyna/models/a.t3d"). A request matches a path exactly or as its trailing whole components,
// so it makes no difference whether the game folder itself or its subfolders were dropped.
class ListedAssets final : public AssetResolver {
 public:
  using Reader = std::function<std::unique_ptr<ByteSource>(std::size_t index)>;
  ListedAssets(const std::vector<std::string>& paths, Reader reader);
  std::vector<std::string> listing() override;

 protected:
  std::unique_ptr<ByteSource> find(const std::string& key) override;
  bool has(const std::string& key) override { return index_of(key).has_value(); }

 private:
  std::optional<std::size_t> index_of(const std::string& key) const;
  std::map<std::string, std::size_t> by_path_;  // normalized path -> index (first wins)
  std::map<std::string, std::size_t> by_tail_;  // its trailing components -> index (first wins)
  Reader reader_;
};

// Files held in memory under their normalized paths: what a document kept of what it read, or a
// test's fixtures.
class MemoryAssets final : public AssetResolver {
 public:
  void add(std::string_view path, std::vector<std::uint8_t> bytes);
  bool empty() const { return files_.empty(); }
  std::size_t size() const { return files_.size(); }
  std::vector<std::string> listing() override;

 protected:
  std::unique_ptr<ByteSource> find(const std::string& key) override;
  bool has(const std::string& key) override { return files_.count(key) != 0; }

 private:
  std::map<std::string, std::vector<std::uint8_t>> files_;
};

}  // namespace sceneria
