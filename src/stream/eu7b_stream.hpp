#pragma once
// An EU7B module opened remotely: the header pass from bytes fetched on demand, then PACK sections
// streamed around the camera. No I/O here: the caller (the browser worker, or a test) fetches what
// `open` and `update` ask for and hands the bytes back, so all of it runs and is tested natively.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "formats/eu7b/eu7b.hpp"
#include "formats/eu7b/to_scene.hpp"
#include "io/byte_source.hpp"
#include "io/run_cache.hpp"
#include "scene/scene.hpp"
#include "stream/section_streamer.hpp"

namespace sceneria::stream {

// The bytes fetched so far. A read of anything else fails and remembers the range it needed.
class PrefetchSource final : public ByteSource {
 public:
  PrefetchSource(std::uint64_t size, std::string name) : size_(size), name_(std::move(name)) {}
  void add(std::uint64_t offset, std::vector<std::uint8_t> bytes) {
    if (!bytes.empty()) runs_.add(offset, std::move(bytes));
  }
  std::uint64_t size() const override { return size_; }
  Error read(std::uint64_t offset, std::span<std::uint8_t> out) override;
  const std::string& name() const override { return name_; }
  std::optional<Span> needed() const { return needed_; }
  void clear_needed() { needed_.reset(); }

 private:
  RunCache runs_;
  std::uint64_t size_;
  std::string name_;
  std::optional<Span> needed_;
};

struct SectionRequest {
  SectionId id;
  std::uint64_t begin = 0, end = 0;  // absolute byte range in the file
};

class Eu7bStream {
 public:
  Eu7bStream(std::uint64_t file_size, std::string name, StreamSettings settings = {});
  ~Eu7bStream();

  void add_bytes(std::uint64_t offset, std::vector<std::uint8_t> bytes) { source_.add(offset, std::move(bytes)); }
  // The header pass with the bytes so far: nullopt once the module is read, else the next range to
  // fetch (at least `read_ahead` bytes), or an error if the file is bad.
  Result<std::optional<Span>> open(std::uint64_t read_ahead = 64 * 1024);
  bool opened() const { return module_ != nullptr; }
  const eu7b::Module& module() const { return *module_; }

  scene::Scene static_scene();        // everything but PACK; call once after open
  glm::dvec3 start_position() const;  // where the camera starts: the first track, else the sections' middle

  std::vector<SectionRequest> update(const glm::dvec3& camera, std::vector<SectionId>& cancel);
  Error section_bytes(SectionId id, std::span<const std::uint8_t> bytes);  // decodes it
  void section_failed(SectionId id);
  std::optional<scene::Scene> apply_one(const glm::dvec3& camera);  // a delta for scene::merge_delta
  std::vector<SectionId> evict(const glm::dvec3& camera);
  const SectionStreamer& streamer() const { return *streamer_; }
  // A streamed PACK model's fields while its section is resident (null otherwise).
  nlohmann::ordered_json pack_record(std::uint64_t index) const;

 private:
  struct SectionInfo {
    eu7b::PidxEntry entry;
    std::uint64_t begin = 0, end = 0;  // absolute
    std::uint64_t first_index = 0;     // first model in the pack_models numbering
  };
  PrefetchSource source_;
  StreamSettings settings_;
  std::unique_ptr<eu7b::Module> module_;
  std::unique_ptr<eu7b::SceneBuilder> builder_;
  std::unique_ptr<SectionStreamer> streamer_;
  std::map<SectionId, SectionInfo> sections_;
  std::map<SectionId, eu7b::PackSection> decoded_;   // arrived, not yet applied
  std::map<SectionId, eu7b::PackSection> resident_;  // applied: kept for the inspector until evicted
};

}  // namespace sceneria::stream
