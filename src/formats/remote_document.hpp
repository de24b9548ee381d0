#pragma once
// A document that streams: opened from a few ranges of a file that stays remote (a URL, or a
// dropped file too big to read whole), then filled in section by section around the camera. The
// format implements it (its registry entry's open_remote); the browser worker drives it without
// knowing the format: it fetches what open() asks for, then on each camera tick the requests
// update() returns, and hands the bytes back. No I/O here, so every format's streaming runs and is
// tested natively.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "formats/document.hpp"
#include "io/byte_source.hpp"
#include "scene/scene.hpp"
#include "stream/section_streamer.hpp"

namespace sceneria::stream {

struct SectionRequest {
  SectionId id;
  std::uint64_t begin = 0, end = 0;  // absolute byte range in the file
};

class RemoteDocument : public Document {
 public:
  // The header pass: bytes fetched so far go in with add_bytes; open() answers nullopt once the
  // document is open, else the next range to fetch (at least `read_ahead` bytes), or an error.
  virtual void add_bytes(std::uint64_t offset, std::vector<std::uint8_t> bytes) = 0;
  virtual Result<std::optional<Span>> open(std::uint64_t read_ahead = 64 * 1024) = 0;
  virtual bool opened() const = 0;

  // After open: what is drawn before any section arrives, and where the camera starts.
  virtual scene::Scene static_scene() = 0;
  virtual glm::dvec3 start_position() const = 0;
  virtual scene::Grid grid() const = 0;  // where the sections are (the minimap, the streamer)

  // One camera tick: sections to fetch now (nearest first) and, in `cancel`, those no longer wanted.
  virtual std::vector<SectionRequest> update(const glm::dvec3& camera, std::vector<SectionId>& cancel) = 0;
  virtual Error section_bytes(SectionId id, std::span<const std::uint8_t> bytes) = 0;
  virtual void section_failed(SectionId id) = 0;
  // At most one decoded section as a scene delta (scene::merge_delta), nearest first.
  virtual std::optional<scene::Scene> apply_one(const glm::dvec3& camera) = 0;
  virtual std::vector<SectionId> evict(const glm::dvec3& camera) = 0;
  virtual std::vector<std::string> take_errors() = 0;  // sections that failed since the last call
  virtual void wait_for_decodes() = 0;                 // tests: block until queued decodes finish
  virtual std::uint64_t decoded_off_thread() const = 0;
  virtual const SectionStreamer& streamer() const = 0;
  // SectionStreamer::hold: no section but the first is requested while on.
  virtual void hold_sections(bool on) = 0;

  // Data the document reads after opening, one piece at a time (model names at the end of a string
  // table, say), when nothing more urgent is loading. nullopt: nothing wanted now.
  virtual std::optional<Span> late_request(std::uint64_t piece) = 0;
  virtual Error late_bytes(std::uint64_t offset, std::span<const std::uint8_t> bytes) = 0;
  virtual void late_failed() = 0;
  // {loaded, total} of that data, in the document's own units (strings, say).
  virtual std::pair<std::uint64_t, std::uint64_t> late_progress() const = 0;
  // Whether lists() or summary() changed since the last call (late data brought new records).
  virtual bool take_described() { return false; }

  // Files the document refers to, to be looked for next to it (beside the URL): each a label (the
  // name as the file gives it) and the paths to try in order, relative to the document's folder.
  // Each file is handed out once, as soon as its name is known (the header's at once, those of
  // streamed parts as the parts arrive), so the caller asks again every tick. The caller looks
  // asynchronously and reports the ones not found (they show in missing_assets()).
  struct AssetQuery {
    std::string label;
    std::vector<std::string> candidates;
  };
  virtual std::vector<AssetQuery> take_asset_queries() { return {}; }
  void asset_missing(std::string label) { missing_.push_back(std::move(label)); }
  std::vector<std::string> missing_assets() const override { return missing_; }

  // A read the caller answers at once, bytes [offset, offset + size) of the file (the browser
  // worker's synchronous fetch): how an export of the whole document, or of an area, reaches the
  // parts it has not streamed (scene_pieces fetches each when it is reached, and lets it go).
  using ReadNow = std::function<Result<std::vector<std::uint8_t>>(std::uint64_t offset, std::uint64_t size)>;
  virtual void set_read_now(ReadNow read) { read_now_ = std::move(read); }

 protected:
  ReadNow read_now_;

 private:
  std::vector<std::string> missing_;
};

}  // namespace sceneria::stream
