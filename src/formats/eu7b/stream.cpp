#include "formats/eu7b/stream.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <utility>

#include <fmt/format.h>

#include "formats/eu7b/browse.hpp"
#include "formats/eu7b/format.hpp"
#include "formats/eu7b/pack.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/summary.hpp"
#include "formats/eu7b/to_scene.hpp"

namespace sceneria::eu7b {

using stream::State;

struct RemoteModule::Finished {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<Decoded> items;
};

RemoteModule::RemoteModule(std::uint64_t file_size, std::string name, StreamSettings settings)
    : source_(file_size, std::move(name)), settings_(settings), finished_(std::make_shared<Finished>()) {
  settings_.grid = kSectionGrid;
}
RemoteModule::~RemoteModule() = default;

// Past the head, a header pass is in a run of chunks (or strings) whose sizes it learns one at a
// time: reading 4× further at each miss (at most 256× `read_ahead`) makes a header of n chunks
// cost about log4 of its size in requests, not n (the dense benchmark's: the head, then all up
// to PACK).
std::uint64_t RemoteModule::miss_read_ahead(std::uint64_t read_ahead) {
  return read_ahead << 2 * std::min(++header_misses_, 4u);
}

Result<std::optional<Span>> RemoteModule::open(std::uint64_t read_ahead) {
  if (ready_) return std::optional<Span>{};
  if (!module_) {
    source_.clear_needed();
    auto m = eu7b::read_module(source_, {.lazy_strings = true, .stop_after_pack = true});
    if (!m) {
      if (auto need = source_.needed()) {
        Span s = *need;
        s.end = std::min(source_.size(), std::max(s.end, s.begin + (need->begin == 0 ? read_ahead : miss_read_ahead(read_ahead))));
        s.begin = source_.fetch_from(s.begin);  // and the payload before it, if it will be read
        return std::optional<Span>{s};
      }
      return m.error();
    }
    module_ = std::make_unique<eu7b::Module>(std::move(m).value());
    strings_ = std::make_unique<eu7b::StringFeed>(*module_);
    if (strings_->error()) return strings_->error();
  }
  // The strings the header's records use (track names, materials, …): the writer puts them first,
  // so this is usually a few kilobytes at the start of STRS, often inside the first read.
  std::vector<std::uint8_t> piece;
  while (module_->strings.size() < module_->strings_referenced && !strings_->done()) {
    const std::uint64_t at = strings_->next_offset(), end = strings_->end_offset();
    piece.resize(static_cast<std::size_t>(std::min<std::uint64_t>(end - at, 256 * 1024)));
    const std::size_t have = source_.copy_available(at, piece);
    if (have == 0) return std::optional<Span>{Span{at, std::min(end, at + miss_read_ahead(read_ahead))}};
    if (Error e = strings_->feed(at, std::span(piece).first(have), *module_)) return e;
  }
  source_.clear();  // the header is decoded; its bytes are not needed again

  builder_ = std::make_unique<eu7b::SceneBuilder>(*module_);
  // Sections, their byte spans, and where their models start in the pack_models numbering.
  std::vector<SectionId> available;
  if (module_->pidx() && module_->pack()) {
    const eu7b::SectionSpans spans(*module_);
    std::uint64_t first = 0;
    for (const eu7b::PidxEntry* e : spans.entries()) {
      auto span = spans(*e);
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
  browser_ = std::make_unique<RecordBrowser>(*module_, RecordBrowser::Live{});
  if (module_->container.rest_offset < module_->container.file_size) rest_ = Rest::wanted;
  ready_ = true;
  return std::optional<Span>{};
}

scene::Scene RemoteModule::static_scene() { return builder_->build(false); }

glm::dvec3 RemoteModule::start_position() const {
  for (const auto& c : module_->chunks)
    if (const auto* tracks = std::get_if<eu7b::RecordList<eu7b::Track>>(&c.data))
      for (const auto& t : tracks->records)
        if (!t.paths.empty()) return {t.paths[0].p1.x, t.paths[0].p1.y, t.paths[0].p1.z};
  if (sections_.empty()) return {};
  glm::dvec2 sum(0.0);
  for (const auto& [id, info] : sections_) {
    const glm::dvec3 c = kSectionGrid.middle(id.row, id.col);
    sum += glm::dvec2(c.x, c.z);
  }
  sum /= static_cast<double>(sections_.size());
  return {sum.x, 0.0, sum.y};
}

std::vector<SectionRequest> RemoteModule::update(const glm::dvec3& camera, std::vector<SectionId>& cancel) {
  std::vector<SectionRequest> out;
  if (!ready_) return out;
  collect();
  for (SectionId id : streamer_->update(camera, cancel)) {
    const SectionInfo& info = sections_.at(id);
    out.push_back({id, info.begin, info.end});
  }
  for (SectionId id : cancel) {  // decoded but never applied: free it
    decoded_.erase(id);
    waiting_.erase(id);
  }
  return out;
}

Error RemoteModule::section_bytes(SectionId id, std::span<const std::uint8_t> bytes) {
  auto it = sections_.find(id);
  if (it == sections_.end() || !ready_)
    return Error{Errc::bad_value, 0, fmt::format("section ({}, {}) is not in this module", id.row, id.col)};
  if (streamer_->state(id) != State::in_flight) return {};  // cancelled meanwhile: ignore
  const SectionInfo& info = it->second;
  if (bytes.size() != info.end - info.begin) {
    streamer_->failed(id);
    return Error{Errc::truncated, info.begin,
                 fmt::format("section ({}, {}): {} bytes arrived, {} expected", id.row, id.col, bytes.size(),
                             info.end - info.begin)};
  }
  // The job owns copies of everything it reads: the module's prototypes stay put (nothing
  // changes them after open) and the pool is stopped before the module goes.
  auto job = [finished = finished_, id, data = std::vector<std::uint8_t>(bytes.begin(), bytes.end()), at = info.begin,
              ctx = eu7b::section_context(*module_, info.entry), prototypes = module_->prototypes(), owner = owner_] {
    Decoded d{id, eu7b::decode_section(data, at, ctx), 0, std::this_thread::get_id() != owner};
    if (d.section) d.strings_needed = eu7b::strings_needed(*d.section, prototypes);
    std::lock_guard lock(finished->mutex);
    finished->items.push_back(std::move(d));
    finished->changed.notify_all();
  };
  ++decoding_;
  if (settings_.decode_threads == 0) {
    job();
    collect();
    return {};
  }
  if (!pool_) pool_ = std::make_unique<TaskPool>(settings_.decode_threads);
  pool_->submit(std::move(job));
  return {};
}

void RemoteModule::collect() {
  std::vector<Decoded> done;
  {
    std::lock_guard lock(finished_->mutex);
    done.swap(finished_->items);
  }
  for (Decoded& d : done) {
    --decoding_;
    decoded_off_thread_ += d.off_thread;
    if (streamer_->state(d.id) != State::in_flight) continue;  // cancelled while it decoded
    if (!d.section) {
      ++sections_settled_;
      streamer_->failed(d.id);
      errors_.push_back(fmt::format("section {},{} could not be read: {}", d.id.row, d.id.col, d.section.error().describe()));
      continue;
    }
    // Ids past the end of STRS resolve to nothing whatever is loaded; do not wait for them.
    waiting_[d.id] = {std::move(d.section).value(), std::min(d.strings_needed, module_->string_count())};
  }
  promote();
}

void RemoteModule::promote() {
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    auto& [id, w] = *it;
    if (w.strings_needed <= module_->strings.size()) {
      decoded_[id] = std::move(w.section);
      streamer_->fetched(id);
    } else if (strings_->error()) {  // no more strings will come: the section cannot be shown
      streamer_->failed(id);
      errors_.push_back(fmt::format("section {},{} needs model names STRS could not give: {}", id.row, id.col,
                                    strings_->error().describe()));
    } else {
      ++it;
      continue;
    }
    it = waiting_.erase(it);
  }
}

void RemoteModule::wait_for_decodes() {
  {
    std::unique_lock lock(finished_->mutex);
    finished_->changed.wait(lock, [&] { return finished_->items.size() >= decoding_; });
  }
  collect();
}

std::vector<std::string> RemoteModule::take_errors() {
  if (ready_) collect();
  return std::exchange(errors_, {});
}

void RemoteModule::section_failed(SectionId id) {
  if (!streamer_) return;
  streamer_->failed(id);
  ++sections_settled_;
}

std::optional<scene::Scene> RemoteModule::apply_one(const glm::dvec3& camera) {
  if (!ready_) return std::nullopt;
  collect();
  // The records after PACK, once the names they use are in (the camera is on its first section).
  if (rest_ == Rest::read && module_->strings.size() >= std::min(module_->strings_referenced, module_->string_count())) {
    rest_ = Rest::built;
    return builder_->rest();
  }
  auto id = streamer_->apply_one(camera);
  if (!id) return std::nullopt;
  auto it = decoded_.find(*id);
  if (it == decoded_.end()) return std::nullopt;
  scene::Scene delta = builder_->pack_section(it->second, sections_.at(*id).first_index);
  for (const ExpandedModel& e : expand_section(it->second, module_->prototypes()))
    if (asset_ids_seen_.insert(e.file).second) asset_ids_pending_.insert(e.file);
  resident_[*id] = std::move(it->second);
  decoded_.erase(it);
  ++sections_settled_;
  if (delta.sections.empty()) {  // an empty section still needs a place on the page
    scene::Section s;
    s.row = id->row;
    s.col = id->col;
    s.origin = kSectionGrid.origin(id->row, id->col);
    delta.sections.push_back(s);
  }
  return delta;
}

std::optional<Span> RemoteModule::strings_request(std::uint64_t piece) {
  if (!ready_ || strings_in_flight_ || strings_->done() || strings_->error()) return std::nullopt;
  collect();
  std::uint32_t urgent = rest_ == Rest::read ? module_->strings_referenced : 0;  // the records after PACK wait
  for (const auto& [id, w] : waiting_) urgent = std::max(urgent, w.strings_needed);
  // Held (SectionStreamer::hold: the first section's model comes first), the streamer is not
  // idle either: the names the inspector wants wait with the ring.
  const bool idle = !streamer_->held() && streamer_->in_flight() == 0 && streamer_->ready() == 0 && decoding_ == 0;
  if (urgent <= module_->strings.size() && !idle) return std::nullopt;
  strings_in_flight_ = true;
  const std::uint64_t at = strings_->next_offset();
  return Span{at, std::min(strings_->end_offset(), at + std::max<std::uint64_t>(piece, 1))};
}

Error RemoteModule::strings_bytes(std::uint64_t offset, std::span<const std::uint8_t> bytes) {
  strings_in_flight_ = false;
  if (!ready_) return Error{Errc::bad_value, offset, "strings arrived before the header was read"};
  Error e = strings_->feed(offset, bytes, *module_);
  promote();  // sections whose names arrived, or that can no longer get them
  return e;
}

std::optional<Span> RemoteModule::late_request(std::uint64_t piece) {
  if (ready_ && rest_ == Rest::in_flight) return std::nullopt;  // one late read at a time
  // The records after PACK come after the first section (the first models wait for nothing
  // else) and before the names, which the inspector alone wants: one read, from PACK's end.
  if (ready_ && rest_ == Rest::wanted && (sections_settled_ > 0 || sections_.empty())) {
    if (strings_in_flight_) return std::nullopt;
    rest_ = Rest::in_flight;
    return Span{module_->container.rest_offset, module_->container.file_size};
  }
  return strings_request(piece);
}

Error RemoteModule::late_bytes(std::uint64_t offset, std::span<const std::uint8_t> bytes) {
  if (!ready_ || rest_ != Rest::in_flight || offset != module_->container.rest_offset) {
    Error e = strings_bytes(offset, bytes);
    return e ? Error{e.code, e.offset, fmt::format("names could not be read: {}", e.message)} : Error{};
  }
  source_.add(offset, std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
  Error e = eu7b::read_rest(source_, *module_, {.lazy_strings = true});
  source_.clear();
  if (e) {
    rest_ = Rest::none;  // the view keeps what it has
    return Error{e.code, e.offset, fmt::format("the records after PACK could not be read: {}", e.message)};
  }
  rest_ = Rest::read;
  browser_ = std::make_unique<RecordBrowser>(*module_, RecordBrowser::Live{});
  header_assets_queued_ = false;  // model files the new records name
  described_ = true;
  return {};
}

void RemoteModule::late_failed() {
  if (ready_ && rest_ == Rest::in_flight) rest_ = Rest::wanted;
  else strings_failed();
}

void RemoteModule::set_read_now(ReadNow read) {
  read_now_ = std::move(read);
  if (Error e = read_rest_now()) errors_.push_back(e.describe());  // as the view would hear of it
}

Error RemoteModule::read_rest_now() {
  if (!ready_ || rest_ != Rest::wanted || !read_now_) return {};
  const std::uint64_t at = module_->container.rest_offset;
  auto bytes = read_now_(at, module_->container.file_size - at);
  if (!bytes) return bytes.error();
  rest_ = Rest::in_flight;
  return late_bytes(at, *bytes);
}

std::vector<SectionId> RemoteModule::evict(const glm::dvec3& camera) {
  if (!ready_) return {};
  auto out = streamer_->evict(camera);
  for (SectionId id : out) resident_.erase(id);  // a later visit fetches it again
  return out;
}

nlohmann::ordered_json RemoteModule::pack_record(std::uint64_t index) const {
  for (const auto& [id, info] : sections_) {
    if (index < info.first_index || index >= info.first_index + info.entry.model_count) continue;
    auto it = resident_.find(id);
    if (it == resident_.end()) return nullptr;
    return eu7b::pack_model_record(*module_, it->second, &info.entry, static_cast<std::size_t>(index - info.first_index));
  }
  return nullptr;
}

nlohmann::ordered_json RemoteModule::summary(std::size_t string_sample) const {
  return ready_ ? summary_json(*module_, string_sample) : nlohmann::ordered_json::object();
}

std::vector<ListInfo> RemoteModule::lists() const {
  if (!browser_) return {};
  std::vector<ListInfo> out = browser_->lists();
  // The PACK models arrive with their sections: clicked in the view, not listed.
  std::uint64_t total = 0;
  for (const auto& [id, info] : sections_) total += info.entry.model_count;
  if (total > 0) out.insert(out.begin(), ListInfo{"pack_models", "PACK models", total, false});
  return out;
}

nlohmann::ordered_json RemoteModule::rows(std::string_view list, std::uint64_t first, std::uint64_t count) const {
  return browser_ ? browser_->rows(list, first, count) : nlohmann::ordered_json::array();
}

nlohmann::ordered_json RemoteModule::search(std::string_view list, std::string_view query, std::uint64_t limit) const {
  return browser_ ? browser_->search(list, query, limit) : nlohmann::ordered_json::array();
}

nlohmann::ordered_json RemoteModule::record(std::string_view list, std::uint64_t index) const {
  if (list == "pack_models") return pack_record(index);  // from the resident sections
  return browser_ ? browser_->record(list, index) : nullptr;
}

std::vector<stream::RemoteDocument::AssetQuery> RemoteModule::take_asset_queries() {
  std::vector<AssetQuery> out;
  if (!ready_) return out;
  if (!header_assets_queued_) {
    header_assets_queued_ = true;
    for (Sid id : model_file_ids(*module_))
      if (asset_ids_seen_.insert(id).second) asset_ids_pending_.insert(id);
  }
  for (auto it = asset_ids_pending_.begin(); it != asset_ids_pending_.end();) {
    const Sid id = *it;
    if (id != kNoString && id >= module_->strings.size()) {  // its name is still on the way
      ++it;
      continue;
    }
    it = asset_ids_pending_.erase(it);
    if (id == kNoString || module_->strings[id].empty()) continue;
    const std::string file(module_->strings[id]);
    AssetQuery q{file, model_candidates(file)};
    if (!q.candidates.empty()) out.push_back(std::move(q));
  }
  return out;
}

class RemotePieces final : public scene::Pieces {
 public:
  explicit RemotePieces(RemoteModule& m) : m_(m) {
    for (const auto& [id, info] : m.sections_) order_.push_back(&info);
    std::sort(order_.begin(), order_.end(), [](const auto* a, const auto* b) { return a->begin < b->begin; });
  }
  Result<scene::Scene> base() override {
    if (!m_.ready_) return Error{Errc::bad_value, 0, "the module is not open yet"};
    if (!m_.read_now_) return Error{Errc::bad_value, 0, "a streamed module is exported only where its sections can be read at once"};
    if (Error e = m_.read_rest_now()) return e;  // the records after PACK, if the view has not read them yet
    if (Error e = load_strings(m_.module_->strings_referenced)) return e;
    builder_ = std::make_unique<SceneBuilder>(*m_.module_);
    return builder_->build(false);
  }
  std::vector<std::pair<glm::dvec3, glm::dvec3>> later_bounds() const override {
    std::vector<std::pair<glm::dvec3, glm::dvec3>> out;
    for (const auto* info : order_) out.push_back(cell_of(*info));
    return out;
  }
  void only(std::function<bool(const std::pair<glm::dvec3, glm::dvec3>&)> wanted) override { wanted_ = std::move(wanted); }
  Result<std::optional<scene::Scene>> next() override {
    while (next_ < order_.size()) {
      const RemoteModule::SectionInfo& info = *order_[next_++];
      if (wanted_ && !wanted_(cell_of(info))) continue;
      auto bytes = m_.read_now_(info.begin, info.end - info.begin);
      if (!bytes) return bytes.error();
      if (bytes->size() != info.end - info.begin)
        return Error{Errc::truncated, info.begin, fmt::format("section ({}, {}): {} bytes arrived, {} expected", info.entry.row,
                                                              info.entry.col, bytes->size(), info.end - info.begin)};
      auto section = decode_section(*bytes, info.begin, section_context(*m_.module_, info.entry));
      if (!section) return section.error();
      // The strings its models name (files, textures, names: the fields say them all).
      models_ = expand_section(*section, m_.module_->prototypes());
      std::uint64_t needed = 0;
      for (const ExpandedModel& e : models_)
        for (Sid id : {e.name, e.file, e.texture})
          if (id != kNoString) needed = std::max<std::uint64_t>(needed, std::uint64_t{id} + 1);
      if (Error e = load_strings(needed)) return e;
      section_ = std::move(section).value();
      info_ = &info;
      return std::optional<scene::Scene>(builder_->pack_section(section_, info.first_index));
    }
    return std::optional<scene::Scene>();
  }
  nlohmann::ordered_json fields(const scene::Object& object, const std::string& kind) override {
    if (kind != "pack_models") return m_.browser_ ? m_.browser_->record(kind, object.index) : nullptr;
    if (!info_ || object.index < info_->first_index || object.index - info_->first_index >= models_.size()) return nullptr;
    return expanded_model_record(*m_.module_, section_, &info_->entry, models_[static_cast<std::size_t>(object.index - info_->first_index)]);
  }

 private:
  // The first `needed` strings, read on from where the strings loaded so far end.
  Error load_strings(std::uint64_t needed) {
    while (m_.module_->strings.size() < needed && !m_.strings_->done() && !m_.strings_->error()) {
      const std::uint64_t at = m_.strings_->next_offset();
      const std::uint64_t size = std::min<std::uint64_t>(m_.strings_->end_offset() - at, 1024 * 1024);
      auto piece = m_.read_now_(at, size);
      if (!piece) return piece.error();
      if (piece->empty()) break;
      if (Error e = m_.strings_->feed(at, *piece, *m_.module_)) return e;
    }
    return {};
  }
  static std::pair<glm::dvec3, glm::dvec3> cell_of(const RemoteModule::SectionInfo& info) {
    const glm::dvec3 lo = kSectionGrid.origin(info.entry.row, info.entry.col);
    return {lo, lo + glm::dvec3(kSectionGrid.cell, 0.0, kSectionGrid.cell)};
  }
  RemoteModule& m_;
  std::vector<const RemoteModule::SectionInfo*> order_;  // PACK order
  std::size_t next_ = 0;
  std::function<bool(const std::pair<glm::dvec3, glm::dvec3>&)> wanted_;
  std::unique_ptr<SceneBuilder> builder_;  // its own: ids from the start, whatever the view holds
  PackSection section_;
  const RemoteModule::SectionInfo* info_ = nullptr;
  std::vector<ExpandedModel> models_;
};

std::unique_ptr<scene::Pieces> RemoteModule::scene_pieces() const {
  return std::make_unique<RemotePieces>(const_cast<RemoteModule&>(*this));  // strings load as sections need them
}

Result<scene::Scene> RemoteModule::scene() const {
  if (!builder_) return Error{Errc::bad_value, 0, "the module is not open yet"};
  return builder_->build(false);
}

}  // namespace sceneria::eu7b
