#pragma once
// An EU7B module opened remotely: the header pass from bytes fetched on demand, then PACK sections
// streamed around the camera. No I/O here: the caller (the browser worker, or a test) fetches what
// `open` and `update` ask for and hands the bytes back, so all of it runs and is tested natively.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/task_pool.hpp"
#include "formats/eu7b/eu7b.hpp"
#include "formats/eu7b/reader.hpp"
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
  // Copies what has been fetched from `offset` on, up to the first gap; returns how much.
  std::size_t copy_available(std::uint64_t offset, std::span<std::uint8_t> out) const { return runs_.copy(offset, out); }
  void clear() { runs_.clear(); }

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

// Every fetch a stream asks for lands in one of three places: the header pass (add_bytes, until
// open() is satisfied), PACK sections (section_bytes), and the strings STRS holds beyond what the
// header needed (strings_bytes). Sections decode on a TaskPool; a decoded section whose models'
// file names are not loaded yet waits for them, still counted as in flight.
class Eu7bStream {
 public:
  Eu7bStream(std::uint64_t file_size, std::string name, StreamSettings settings = {});
  ~Eu7bStream();

  void add_bytes(std::uint64_t offset, std::vector<std::uint8_t> bytes) { source_.add(offset, std::move(bytes)); }
  // The header pass with the bytes so far: nullopt once the module is read and the strings its
  // records use are loaded, else the next range to fetch (at least `read_ahead` bytes), or an
  // error if the file is bad. STRS beyond those strings is not read here.
  Result<std::optional<Span>> open(std::uint64_t read_ahead = 64 * 1024);
  bool opened() const { return ready_; }
  const eu7b::Module& module() const { return *module_; }

  scene::Scene static_scene();        // everything but PACK; call once after open
  glm::dvec3 start_position() const;  // where the camera starts: the first track, else the sections' middle

  std::vector<SectionRequest> update(const glm::dvec3& camera, std::vector<SectionId>& cancel);
  // Checks the length now and queues the decode; decode errors come back from take_errors().
  Error section_bytes(SectionId id, std::span<const std::uint8_t> bytes);
  void section_failed(SectionId id);
  std::optional<scene::Scene> apply_one(const glm::dvec3& camera);  // a delta for scene::merge_delta
  std::vector<SectionId> evict(const glm::dvec3& camera);
  std::vector<std::string> take_errors();  // sections that failed to decode since the last call
  void wait_for_decodes();                 // blocks until every queued decode has finished (tests)
  std::uint64_t decoded_off_thread() const { return decoded_off_thread_; }  // by the pool, not the caller
  const SectionStreamer& streamer() const { return *streamer_; }
  // A streamed PACK model's fields while its section is resident (null otherwise).
  nlohmann::ordered_json pack_record(std::uint64_t index) const;

  // The next STRS range to fetch, if strings are wanted now: at once when a decoded section waits
  // for its file names, otherwise (all names, for the inspector) only while no section is loading.
  // One request at a time; `piece` bounds its size.
  std::optional<Span> strings_request(std::uint64_t piece = 1024 * 1024);
  Error strings_bytes(std::uint64_t offset, std::span<const std::uint8_t> bytes);
  void strings_failed() { strings_in_flight_ = false; }
  std::uint32_t strings_loaded() const { return module_ ? static_cast<std::uint32_t>(module_->strings.size()) : 0; }
  std::uint32_t string_count() const { return module_ ? module_->string_count() : 0; }

 private:
  struct SectionInfo {
    eu7b::PidxEntry entry;
    std::uint64_t begin = 0, end = 0;  // absolute
    std::uint64_t first_index = 0;     // first model in the pack_models numbering
  };
  struct Decoded {  // what a decode job hands back
    SectionId id;
    Result<eu7b::PackSection> section;
    std::uint32_t strings_needed = 0;
    bool off_thread = false;
  };
  struct Finished;  // decode results, shared with the pool's threads
  void collect();   // finished decodes -> ready sections (or waiting for strings)
  void promote();   // sections whose strings have arrived -> ready (or failed, if none can come)

  PrefetchSource source_;
  StreamSettings settings_;
  std::unique_ptr<eu7b::Module> module_;
  std::unique_ptr<eu7b::StringFeed> strings_;
  bool ready_ = false;
  bool strings_in_flight_ = false;
  std::unique_ptr<eu7b::SceneBuilder> builder_;
  std::unique_ptr<SectionStreamer> streamer_;
  std::map<SectionId, SectionInfo> sections_;
  struct Waiting {  // decoded, waiting for its models' file names
    eu7b::PackSection section;
    std::uint32_t strings_needed = 0;
  };
  std::map<SectionId, Waiting> waiting_;
  std::map<SectionId, eu7b::PackSection> decoded_;   // ready, not yet applied
  std::map<SectionId, eu7b::PackSection> resident_;  // applied: kept for the inspector until evicted
  std::vector<std::string> errors_;
  std::shared_ptr<Finished> finished_;
  std::size_t decoding_ = 0;  // jobs submitted, not yet collected
  std::uint64_t decoded_off_thread_ = 0;
  std::thread::id owner_ = std::this_thread::get_id();
  std::unique_ptr<TaskPool> pool_;  // last: its threads stop before the rest goes
};

}  // namespace sceneria::stream
