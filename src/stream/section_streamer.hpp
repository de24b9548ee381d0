#pragma once
// Which PACK sections to fetch, keep and drop as the camera moves, with the reference runtime's
// semantics (spec §31): bootstrap radius 3 around the start, stream radius 9, look-ahead 4 in the
// direction of travel, at most 72 requests in flight and 36 decoded sections waiting, one section
// applied per frame, nearest first. Requests for sections the camera has left are cancelled;
// resident sections beyond the keep radius are evicted, least recently wanted first, so memory
// stays bounded on long flights. Pure logic: the fetching and decoding happen elsewhere, so this
// runs and is tested natively.
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include <glm/glm.hpp>

#include "io/byte_source.hpp"
#include "scene/scene.hpp"

namespace sceneria::stream {

struct StreamSettings {
  int bootstrap_radius = 3;   // sections around the start position loaded before the first frame
  int stream_radius = 9;      // sections kept wanted around the camera
  int lookahead = 4;          // extra sections ahead in the direction of travel
  int keep_radius = 11;       // resident sections further than this are evicted
  std::size_t max_in_flight = 72;
  std::size_t max_ready = 36;
  std::size_t max_resident = 600;  // hard cap (LRU) whatever the radius
  unsigned decode_threads = 2;     // sections decode on these (0: on the caller's thread)
  scene::Grid grid;                // where sections are (the document's scene grid)
};

struct SectionId {
  int row = 0, col = 0;
  auto operator<=>(const SectionId&) const = default;
};

// The grid cell of a world point.
SectionId section_of(const glm::dvec3& world, const scene::Grid& grid);

enum class State : std::uint8_t { idle, in_flight, ready, resident };

class SectionStreamer {
 public:
  // `available`: the sections the module's PIDX lists.
  SectionStreamer(std::vector<SectionId> available, StreamSettings settings = {});

  // Called once per frame with the camera position. Returns the sections to request now (nearest
  // first, bounded by the in-flight budget) and fills `cancel` with sections no longer wanted
  // that were requested or decoded but not applied: their requests and decoded data can go.
  std::vector<SectionId> update(const glm::dvec3& camera, std::vector<SectionId>& cancel);
  // The bootstrap set for a start position (what must be resident before the first frame).
  std::vector<SectionId> bootstrap(const glm::dvec3& start) const;

  // Holds back every request but the cold start's while on: the owner's way to put something
  // before the ring around the first section (its models, say). Cancels and evictions go on.
  void hold(bool on) { held_ = on; }
  bool held() const { return held_; }

  void fetched(SectionId id);  // bytes arrived and decoded: in_flight -> ready (if still wanted)
  void failed(SectionId id);   // the request failed for good: back to idle, not retried this pass
  // The next ready section to apply this frame (one per frame), nearest first; marks it resident.
  std::optional<SectionId> apply_one(const glm::dvec3& camera);
  // Resident sections to drop now (beyond the keep radius, or over the resident cap).
  std::vector<SectionId> evict(const glm::dvec3& camera);

  // Whether the sections around the camera (its own and the eight next to it) are decoded or on
  // screen: until then each is fetched alone, nearest first (plan_reads).
  bool near_loaded(const glm::dvec3& camera) const;

  State state(SectionId id) const;
  // Every section of the module with its state, for a map of the streaming.
  std::vector<std::pair<SectionId, State>> states() const;
  std::size_t in_flight() const { return count(State::in_flight); }
  std::size_t ready() const { return count(State::ready); }
  std::size_t resident() const { return count(State::resident); }

 private:
  std::size_t count(State s) const;
  std::vector<SectionId> wanted(const glm::dvec3& camera) const;

  struct Entry {
    State state = State::idle;
    std::uint64_t last_wanted = 0;
    bool failed = false;
  };
  std::map<SectionId, Entry> sections_;
  StreamSettings settings_;
  std::uint64_t frame_ = 0;
  glm::dvec3 last_camera_{0.0};
  glm::dvec2 heading_{0.0};  // smoothed direction of travel in the XZ plane
  bool has_camera_ = false;
  bool held_ = false;
};

// Byte spans to fetch, merged when the gap between them is small (PMTiles, loaders.gl: 64 KiB)
// and the merged read stays under a cap. `spans` must not overlap; indices map back to them.
using sceneria::Span;
struct MergedRead {
  Span span;
  std::vector<std::size_t> parts;  // indices into the input spans, in order
};
std::vector<MergedRead> coalesce(const std::vector<Span>& spans, std::uint64_t max_gap = 64 * 1024,
                                 std::uint64_t max_read = 8 * 1024 * 1024);
// The reads for one tick's section requests: one per section while `merge` is false (the first
// models must not wait for a merged 8 MiB read), coalesced once the nearest sections are in.
std::vector<MergedRead> plan_reads(const std::vector<Span>& spans, bool merge);

}  // namespace sceneria::stream
