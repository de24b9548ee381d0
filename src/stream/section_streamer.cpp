#include "stream/section_streamer.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>

namespace sceneria::stream {

namespace {
// Distance in sections (Chebyshev: a square radius, as the runtime's section ring).
int ring(SectionId a, SectionId b) { return std::max(std::abs(a.row - b.row), std::abs(a.col - b.col)); }
double distance2(SectionId id, const glm::dvec3& camera, const scene::Grid& grid) {
  const glm::dvec3 c = grid.middle(id.row, id.col);
  const glm::dvec2 d = glm::dvec2(c.x, c.z) - glm::dvec2(camera.x, camera.z);
  return glm::dot(d, d);
}
}  // namespace

SectionId section_of(const glm::dvec3& world, const scene::Grid& grid) { return {grid.row_of(world.z), grid.col_of(world.x)}; }

SectionStreamer::SectionStreamer(std::vector<SectionId> available, StreamSettings settings) : settings_(settings) {
  for (SectionId id : available) sections_[id] = {};
}

std::size_t SectionStreamer::count(State s) const {
  std::size_t n = 0;
  for (const auto& [id, e] : sections_) n += e.state == s;
  return n;
}

State SectionStreamer::state(SectionId id) const {
  auto it = sections_.find(id);
  return it == sections_.end() ? State::idle : it->second.state;
}

std::vector<std::pair<SectionId, State>> SectionStreamer::states() const {
  std::vector<std::pair<SectionId, State>> out;
  out.reserve(sections_.size());
  for (const auto& [id, e] : sections_) out.push_back({id, e.state});
  return out;
}

std::vector<SectionId> SectionStreamer::bootstrap(const glm::dvec3& start) const {
  const SectionId c = section_of(start, settings_.grid);
  std::vector<SectionId> out;
  for (const auto& [id, e] : sections_)
    if (ring(id, c) <= settings_.bootstrap_radius) out.push_back(id);
  std::sort(out.begin(), out.end(), [&](SectionId a, SectionId b) { return distance2(a, start, settings_.grid) < distance2(b, start, settings_.grid); });
  return out;
}

std::vector<SectionId> SectionStreamer::wanted(const glm::dvec3& camera) const {
  const SectionId c = section_of(camera, settings_.grid);
  // Look-ahead: the ring's centre moves `lookahead` sections along the direction of travel, and a
  // section is wanted if it is within the stream radius of either centre.
  SectionId ahead = c;
  if (glm::length(heading_) > 0.5) {
    ahead.col += static_cast<int>(std::lround(heading_.x * settings_.lookahead));
    ahead.row += static_cast<int>(std::lround(heading_.y * settings_.lookahead));
  }
  std::vector<SectionId> out;
  for (const auto& [id, e] : sections_)
    if (ring(id, c) <= settings_.stream_radius || ring(id, ahead) <= settings_.stream_radius) out.push_back(id);
  std::sort(out.begin(), out.end(), [&](SectionId a, SectionId b) { return distance2(a, camera, settings_.grid) < distance2(b, camera, settings_.grid); });
  return out;
}

std::vector<SectionId> SectionStreamer::update(const glm::dvec3& camera, std::vector<SectionId>& cancel) {
  ++frame_;
  if (has_camera_) {
    const glm::dvec2 move(camera.x - last_camera_.x, camera.z - last_camera_.z);
    if (glm::length(move) > 1.0) heading_ = glm::mix(heading_, glm::normalize(move), 0.3);
  }
  last_camera_ = camera;
  has_camera_ = true;

  const std::vector<SectionId> want = wanted(camera);
  for (SectionId id : want) sections_[id].last_wanted = frame_;
  // Cancel requests and decoded-but-unapplied sections the camera has left behind.
  cancel.clear();
  for (auto& [id, e] : sections_) {
    if (e.last_wanted == frame_) continue;
    if (e.state == State::in_flight || e.state == State::ready) {
      cancel.push_back(id);  // the owner aborts the request or frees the decoded section
      e.state = State::idle;
    }
  }
  // Backpressure: while the decoded queue is full, nothing new is requested.
  std::vector<SectionId> request;
  if (ready() >= settings_.max_ready) return request;
  std::size_t budget = settings_.max_in_flight - std::min(settings_.max_in_flight, in_flight());
  // A cold start asks for the nearest section alone and nothing else until it is applied: the
  // first models appear after the header and one section, not after the whole bootstrap ring (on
  // a dense scenery, a fifth of the file), and a busy worker or page cannot let other reads land
  // in between.
  if (resident() == 0) budget = in_flight() == 0 && ready() == 0 ? std::min<std::size_t>(budget, 1) : 0;
  else if (held_) budget = 0;
  for (SectionId id : want) {
    if (!budget) break;
    Entry& e = sections_[id];
    if (e.state != State::idle || e.failed) continue;
    e.state = State::in_flight;
    request.push_back(id);
    --budget;
  }
  return request;
}

bool SectionStreamer::near_loaded(const glm::dvec3& camera) const {
  // Called every tick: the nine cells around the camera, not every section of the module.
  const SectionId c = section_of(camera, settings_.grid);
  for (int dr = -1; dr <= 1; ++dr)
    for (int dc = -1; dc <= 1; ++dc) {
      auto it = sections_.find({c.row + dr, c.col + dc});
      if (it == sections_.end()) continue;
      const Entry& e = it->second;
      if (e.state != State::ready && e.state != State::resident && !e.failed) return false;
    }
  return true;
}

void SectionStreamer::fetched(SectionId id) {
  auto it = sections_.find(id);
  if (it != sections_.end() && it->second.state == State::in_flight) it->second.state = State::ready;
}

void SectionStreamer::failed(SectionId id) {
  auto it = sections_.find(id);
  if (it == sections_.end()) return;
  it->second.state = State::idle;
  it->second.failed = true;
}

std::optional<SectionId> SectionStreamer::apply_one(const glm::dvec3& camera) {
  std::optional<SectionId> best;
  for (const auto& [id, e] : sections_)
    if (e.state == State::ready && (!best || distance2(id, camera, settings_.grid) < distance2(*best, camera, settings_.grid))) best = id;
  if (best) sections_[*best].state = State::resident;
  return best;
}

std::vector<SectionId> SectionStreamer::evict(const glm::dvec3& camera) {
  const SectionId c = section_of(camera, settings_.grid);
  std::vector<SectionId> out;
  std::vector<std::pair<std::uint64_t, SectionId>> resident;
  for (auto& [id, e] : sections_) {
    if (e.state != State::resident) continue;
    // Still wanted (the look-ahead reaches past the keep radius): keep it, or it would thrash.
    if (ring(id, c) > settings_.keep_radius && e.last_wanted != frame_) {
      e.state = State::idle;
      out.push_back(id);
    } else {
      resident.push_back({e.last_wanted, id});
    }
  }
  if (resident.size() > settings_.max_resident) {
    std::sort(resident.begin(), resident.end());  // least recently wanted first
    for (std::size_t i = 0; i < resident.size() - settings_.max_resident; ++i) {
      sections_[resident[i].second].state = State::idle;
      out.push_back(resident[i].second);
    }
  }
  return out;
}

std::vector<MergedRead> coalesce(const std::vector<Span>& spans, std::uint64_t max_gap, std::uint64_t max_read) {
  std::vector<std::size_t> order(spans.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return spans[a].begin < spans[b].begin; });
  std::vector<MergedRead> out;
  for (std::size_t i : order) {
    const Span& s = spans[i];
    if (!out.empty()) {
      MergedRead& last = out.back();
      const bool close = s.begin >= last.span.end && s.begin - last.span.end <= max_gap;
      if (close && s.end - last.span.begin <= max_read) {
        last.span.end = s.end;
        last.parts.push_back(i);
        continue;
      }
    }
    out.push_back({s, {i}});
  }
  return out;
}

std::vector<MergedRead> plan_reads(const std::vector<Span>& spans, bool merge) {
  if (merge) return coalesce(spans);
  std::vector<MergedRead> out;
  for (std::size_t i = 0; i < spans.size(); ++i) out.push_back({spans[i], {i}});
  return out;
}

}  // namespace sceneria::stream
