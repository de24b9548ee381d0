#include "stream/eu7b_stream.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "formats/eu7b/browse.hpp"
#include "formats/eu7b/pack.hpp"
#include "formats/eu7b/reader.hpp"

namespace sceneria::stream {

Error PrefetchSource::read(std::uint64_t offset, std::span<std::uint8_t> out) {
  if (Error e = check_range(offset, out.size())) return e;
  const std::size_t have = runs_.copy(offset, out);
  if (have == out.size()) return {};
  const std::uint64_t at = offset + have;
  needed_ = Span{at, offset + out.size()};
  return Error{Errc::io, at, fmt::format("{}: bytes at {} not fetched yet", name_, hex_offset(at))};
}

Eu7bStream::Eu7bStream(std::uint64_t file_size, std::string name, StreamSettings settings)
    : source_(file_size, std::move(name)), settings_(settings) {}
Eu7bStream::~Eu7bStream() = default;

Result<std::optional<Span>> Eu7bStream::open(std::uint64_t read_ahead) {
  if (module_) return std::optional<Span>{};
  source_.clear_needed();
  auto m = eu7b::read_module(source_);
  if (!m) {
    if (auto need = source_.needed()) {
      Span s = *need;
      s.end = std::min(source_.size(), std::max(s.end, s.begin + read_ahead));
      return std::optional<Span>{s};
    }
    return m.error();
  }
  module_ = std::make_unique<eu7b::Module>(std::move(m).value());
  builder_ = std::make_unique<eu7b::SceneBuilder>(*module_);
  // Sections, their byte spans, and where their models start in the pack_models numbering.
  std::vector<SectionId> available;
  if (const auto* pidx = module_->pidx(); pidx && module_->pack()) {
    std::vector<const eu7b::PidxEntry*> by_offset;
    for (const auto& e : *pidx) by_offset.push_back(&e);
    std::stable_sort(by_offset.begin(), by_offset.end(),
                     [](const auto* a, const auto* b) { return a->pack_offset < b->pack_offset; });
    std::uint64_t first = 0;
    for (const auto* e : by_offset) {
      auto span = eu7b::section_span(*module_, *e);
      if (!span) return span.error();
      const SectionId id{e->row, e->col};
      if (sections_.count(id)) continue;
      const std::uint64_t base = module_->pack()->payload_offset;
      sections_[id] = {*e, base + span->begin, base + span->end, first};
      first += e->model_count;
      available.push_back(id);
    }
  }
  streamer_ = std::make_unique<SectionStreamer>(std::move(available), settings_);
  return std::optional<Span>{};
}

scene::Scene Eu7bStream::static_scene() { return builder_->build(false); }

glm::dvec3 Eu7bStream::start_position() const {
  for (const auto& c : module_->chunks)
    if (const auto* tracks = std::get_if<eu7b::RecordList<eu7b::Track>>(&c.data))
      for (const auto& t : tracks->records)
        if (!t.paths.empty()) return {t.paths[0].p1.x, t.paths[0].p1.y, t.paths[0].p1.z};
  if (sections_.empty()) return {};
  glm::dvec2 sum(0.0);
  for (const auto& [id, info] : sections_) sum += glm::dvec2((id.col - 250) * 1000.0 + 500, (id.row - 250) * 1000.0 + 500);
  sum /= static_cast<double>(sections_.size());
  return {sum.x, 0.0, sum.y};
}

std::vector<SectionRequest> Eu7bStream::update(const glm::dvec3& camera, std::vector<SectionId>& cancel) {
  std::vector<SectionRequest> out;
  if (!streamer_) return out;
  for (SectionId id : streamer_->update(camera, cancel)) {
    const SectionInfo& info = sections_.at(id);
    out.push_back({id, info.begin, info.end});
  }
  for (SectionId id : cancel) decoded_.erase(id);  // decoded but never applied: free it
  return out;
}

Error Eu7bStream::section_bytes(SectionId id, std::span<const std::uint8_t> bytes) {
  auto it = sections_.find(id);
  if (it == sections_.end() || !module_)
    return Error{Errc::bad_value, 0, fmt::format("section ({}, {}) is not in this module", id.row, id.col)};
  if (streamer_->state(id) != State::in_flight) return {};  // cancelled meanwhile: ignore
  const SectionInfo& info = it->second;
  if (bytes.size() != info.end - info.begin) {
    streamer_->failed(id);
    return Error{Errc::truncated, info.begin,
                 fmt::format("section ({}, {}): {} bytes arrived, {} expected", id.row, id.col, bytes.size(),
                             info.end - info.begin)};
  }
  auto section = eu7b::decode_section(bytes, info.begin, eu7b::section_context(*module_, info.entry));
  if (!section) {
    streamer_->failed(id);
    return section.error();
  }
  decoded_[id] = std::move(section).value();
  streamer_->fetched(id);
  return {};
}

void Eu7bStream::section_failed(SectionId id) {
  if (streamer_) streamer_->failed(id);
}

std::optional<scene::Scene> Eu7bStream::apply_one(const glm::dvec3& camera) {
  if (!streamer_) return std::nullopt;
  auto id = streamer_->apply_one(camera);
  if (!id) return std::nullopt;
  auto it = decoded_.find(*id);
  if (it == decoded_.end()) return std::nullopt;
  scene::Scene delta = builder_->pack_section(it->second, sections_.at(*id).first_index);
  resident_[*id] = std::move(it->second);
  decoded_.erase(it);
  if (delta.sections.empty()) {  // an empty section still needs a place on the page
    scene::Section s;
    s.row = id->row;
    s.col = id->col;
    s.origin = {(id->col - 250) * 1000.0, 0.0, (id->row - 250) * 1000.0};
    delta.sections.push_back(s);
  }
  return delta;
}

std::vector<SectionId> Eu7bStream::evict(const glm::dvec3& camera) {
  if (!streamer_) return {};
  auto out = streamer_->evict(camera);
  for (SectionId id : out) resident_.erase(id);  // a later visit fetches it again
  return out;
}

nlohmann::ordered_json Eu7bStream::pack_record(std::uint64_t index) const {
  for (const auto& [id, info] : sections_) {
    if (index < info.first_index || index >= info.first_index + info.entry.model_count) continue;
    auto it = resident_.find(id);
    if (it == resident_.end()) return nullptr;
    return eu7b::pack_model_record(*module_, it->second, &info.entry, static_cast<std::size_t>(index - info.first_index));
  }
  return nullptr;
}

}  // namespace sceneria::stream
