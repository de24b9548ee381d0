#pragma once
// An EU7B module opened remotely (stream::RemoteDocument): the header pass from bytes fetched on
// demand, then PACK sections streamed around the camera. No I/O here: the caller (the browser
// worker, or a test) fetches what `open` and `update` ask for and hands the bytes back.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/task_pool.hpp"
#include "formats/eu7b/browse.hpp"
#include "formats/eu7b/eu7b.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/summary.hpp"
#include "formats/eu7b/to_scene.hpp"
#include "formats/remote_document.hpp"
#include "io/prefetch_source.hpp"
#include "scene/scene.hpp"

namespace sceneria::eu7b {

using stream::SectionId;
using stream::SectionRequest;
using stream::SectionStreamer;
using stream::StreamSettings;

// Every fetch a stream asks for lands in one of three places: the header pass (add_bytes, until
// open() is satisfied), PACK sections (section_bytes), and the strings STRS holds beyond what the
// header needed (strings_bytes). Sections decode on a TaskPool; a decoded section whose models'
// file names are not loaded yet waits for them, still counted as in flight.
class RemoteModule final : public stream::RemoteDocument {
 public:
  RemoteModule(std::uint64_t file_size, std::string name, StreamSettings settings = {});
  ~RemoteModule() override;

  void add_bytes(std::uint64_t offset, std::vector<std::uint8_t> bytes) override { source_.add(offset, std::move(bytes)); }
  // The header pass with the bytes so far: nullopt once the chunks up to PACK are read and the
  // strings their records use are loaded, else the next range to fetch, or an error if the file
  // is bad. A miss past the first reads at least 4× `read_ahead`, and 4× more at each miss after
  // (EU7B has no chunk directory: a header is found only by stepping over the payload before it).
  // STRS beyond those strings, and the chunks after PACK, are not read here (late_request).
  Result<std::optional<Span>> open(std::uint64_t read_ahead = 64 * 1024) override;
  bool opened() const override { return ready_; }
  const eu7b::Module& module() const { return *module_; }

  scene::Scene static_scene() override;        // everything but PACK; call once after open
  glm::dvec3 start_position() const override;  // where the camera starts: the first track, else the sections' middle

  std::vector<SectionRequest> update(const glm::dvec3& camera, std::vector<SectionId>& cancel) override;
  // Checks the length now and queues the decode; decode errors come back from take_errors().
  Error section_bytes(SectionId id, std::span<const std::uint8_t> bytes) override;
  void section_failed(SectionId id) override;
  std::optional<scene::Scene> apply_one(const glm::dvec3& camera) override;  // a delta for scene::merge_delta
  std::vector<SectionId> evict(const glm::dvec3& camera) override;
  std::vector<std::string> take_errors() override;  // sections that failed to decode since the last call
  void wait_for_decodes() override;                 // blocks until every queued decode has finished (tests)
  std::uint64_t decoded_off_thread() const override { return decoded_off_thread_; }  // by the pool, not the caller
  const SectionStreamer& streamer() const override { return *streamer_; }
  void hold_sections(bool on) override {
    if (streamer_) streamer_->hold(on);
  }
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

  // RemoteDocument's late data: the chunks after PACK (traction, vehicles, events, …), in one
  // read once the first section has been applied (or cannot be), then STRS past the header's
  // strings. The records after PACK come back from apply_one as a delta the scene keeps.
  std::optional<Span> late_request(std::uint64_t piece) override;
  Error late_bytes(std::uint64_t offset, std::span<const std::uint8_t> bytes) override;
  void late_failed() override;
  bool take_described() override { return std::exchange(described_, false); }
  // An export is about to read through `read`: the records after PACK come now, if the view has
  // not read them, so that what it writes (the headline, the base scene) is the whole file's.
  void set_read_now(ReadNow read) override;
  std::pair<std::uint64_t, std::uint64_t> late_progress() const override { return {strings_loaded(), string_count()}; }

  // Document: the lists read the live module, so names that arrive after opening show up.
  scene::Grid grid() const override { return kSectionGrid; }
  std::string_view format_id() const override { return "eu7b"; }
  std::string headline() const override { return ready_ ? eu7b::headline(*module_) : "EU7B (opening)"; }
  nlohmann::ordered_json summary(std::size_t string_sample) const override;
  std::vector<ListInfo> lists() const override;
  nlohmann::ordered_json rows(std::string_view list, std::uint64_t first, std::uint64_t count) const override;
  nlohmann::ordered_json search(std::string_view list, std::string_view query, std::uint64_t limit) const override;
  nlohmann::ordered_json record(std::string_view list, std::uint64_t index) const override;
  Result<scene::Scene> scene() const override;
  // For an export: the header's scene, then every PACK section (in PACK order, those an area
  // leaves out passed by) fetched through the ReadNow reader when reached, with the strings its
  // models name; streamed sections and the view are left as they are.
  std::unique_ptr<scene::Pieces> scene_pieces() const override;
  // The model files placed: the header's records' (MODL, prototypes) and, as sections arrive,
  // their solo models'; each once, by the engine's lookup order, when its name is loaded.
  std::vector<AssetQuery> take_asset_queries() override;

 private:
  friend class RemotePieces;
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
  std::unique_ptr<RecordBrowser> browser_;  // over *module_
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
  std::set<Sid> asset_ids_seen_;                     // model files handed out or pending
  std::set<Sid> asset_ids_pending_;                  // ... not yet handed out (name not loaded, say)
  bool header_assets_queued_ = false;
  unsigned header_misses_ = 0;
  std::uint64_t miss_read_ahead(std::uint64_t read_ahead);  // the next header miss's read, growing
  // The chunks after PACK: not there, to fetch (once a section has settled), fetching, read (the
  // delta waits for their names), handed out.
  enum class Rest { none, wanted, in_flight, read, built } rest_ = Rest::none;
  std::uint64_t sections_settled_ = 0;  // applied or failed: the first impression is over
  bool described_ = false;              // lists or summary changed since take_described
  Error read_rest_now();                // for an export: the chunks after PACK through read_now_
  std::vector<std::string> errors_;
  std::shared_ptr<Finished> finished_;
  std::size_t decoding_ = 0;  // jobs submitted, not yet collected
  std::uint64_t decoded_off_thread_ = 0;
  std::thread::id owner_ = std::this_thread::get_id();
  std::unique_ptr<TaskPool> pool_;  // last: its threads stop before the rest goes
};

}  // namespace sceneria::eu7b
