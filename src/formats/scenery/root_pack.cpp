#include "formats/scenery/root_pack.hpp"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "core/text.hpp"
#include "formats/scenery/tokens.hpp"

namespace sceneria::scenery {
namespace {

// Files over this many bytes are read by the writer's streaming paths (parallel_models.hpp
// shouldStreamFlatSourceFile): strictly more than 4 MiB.
constexpr std::uint64_t kStreamedFileSize = 4u << 20;

// A file as the writer's compose sees it (compose_pack_models.hpp PackFileCacheEntry).
// Its models are taken by the first include that places them rather than copied: most files
// are placed once, and a million models held twice (here and placed) were half the compile's
// memory. A file placed again is read again, once, and its models kept from then on.
struct Entry {
  std::vector<PackModel> models;
  std::vector<IncludeSite> includes;
  std::array<std::uint8_t, 4> placement{};  // parameter numbers of origin x, y, z and rotate y
  bool taken = false;                       // `models` were taken (there were some)
  bool read_again = false;                  // and read again, to keep
  bool placed() const { return placement != std::array<std::uint8_t, 4>{}; }
};

bool separator(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';' || c == ','; }

std::string_view skip_separators(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && separator(s[i])) ++i;
  return s.substr(i);
}

// parallel_models.hpp segmentStartsWithKeyword.
bool starts_with_word(std::string_view text, std::string_view word) {
  text = skip_separators(text);
  return text.substr(0, word.size()) == word && (text.size() == word.size() || separator(text[word.size()]));
}

enum class Flat { none, models, includes };

// classifyFlatFile: every piece a model node on one line, or every piece an include on one.
Flat classify(const std::vector<std::string_view>& pieces) {
  Flat kind = Flat::none;
  for (std::string_view piece : pieces) {
    piece = skip_separators(piece);
    if (piece.empty()) continue;
    if (starts_with_word(piece, "node")) {
      if (piece.find("endmodel") == std::string_view::npos || kind == Flat::includes) return Flat::none;
      kind = Flat::models;
    } else if (starts_with_word(piece, "include")) {
      if (piece.find("end") == std::string_view::npos || kind == Flat::models) return Flat::none;
      kind = Flat::includes;
    } else {
      return Flat::none;
    }
  }
  return kind;
}

std::string_view trim(std::string_view s) {
  s = skip_separators(s);
  while (!s.empty() && separator(s.back())) s.remove_suffix(1);
  return s;
}

// parallel_models.hpp parseIncludeSegment: `include;file;p1;…;end` split at `;` (a field may
// hold spaces), else the piece's tokens: the file, then parameters up to `end` or the piece's end.
// No site transform: a line read alone has none.
std::optional<IncludeSite> include_of(std::string_view piece) {
  std::string_view text = piece;
  if (const std::size_t comment = text.find("//"); comment != std::string_view::npos) text = text.substr(0, comment);
  text = skip_separators(text);
  if (starts_with_word(text, "include")) {
    std::vector<std::string_view> fields;
    for (std::string_view rest = text; !rest.empty();) {
      rest = skip_separators(rest);
      if (rest.empty()) break;
      const std::size_t cut = rest.find(';');
      fields.push_back(trim(rest.substr(0, cut)));
      if (cut == std::string_view::npos) break;
      rest.remove_prefix(cut + 1);
    }
    if (!fields.empty() && fields.front() == "include") {
      IncludeSite site;
      if (fields.size() >= 2) site.file = fields[1];
      for (std::size_t i = 2; i < fields.size() && fields[i] != "end"; ++i) site.params.emplace_back(fields[i]);
      return site;
    }
  }
  const auto bytes = std::span(reinterpret_cast<const std::uint8_t*>(piece.data()), piece.size());
  TextTokenizer tokens(bytes, {.writer = true});
  TextToken t;
  if (!tokens.next(t) || t.text != "include") return std::nullopt;
  IncludeSite site;
  if (tokens.next(t)) site.file = t.text;
  while (tokens.next(t) && t.text != "end") site.params.emplace_back(t.text);
  return site;
}

// A file read whole, as its own document (no parameters, includes not followed).
Interpreted read_whole(std::span<const std::uint8_t> bytes, const std::string& name, std::function<void(double)> progress) {
  TextTokenSource source(bytes, {.writer = true});
  return interpret(source, name, {.reference_writer = true, .progress = std::move(progress), .sources = false, .exact = true});
}

// Is it a root of models only (document.hpp isModelOnlyDocument)?
bool models_only(const Interpreted& in) {
  if (in.exact_models.empty() || !in.include_sites.empty() || in.unknown_tokens) return false;
  for (const eu7b::Chunk& c : in.module.chunks) {
    if (c.id == eu7b::chunk::STRS || c.id == eu7b::chunk::INCL || c.id == eu7b::chunk::MODL || c.id == eu7b::chunk::FINT ||
        c.id == eu7b::chunk::EVNT || c.id == eu7b::chunk::TRSE || c.id == eu7b::chunk::PLAC)
      continue;
    const bool empty = std::visit(
        [](const auto& d) {
          using T = std::decay_t<decltype(d)>;
          if constexpr (requires { d.records; }) return d.records.empty();
          else if constexpr (std::is_same_v<T, eu7b::Terrain>) return d.batches.empty() && d.legacy.empty();
          else return true;
        },
        c.data);
    if (!empty) return false;
  }
  return true;
}

// `(p<digits>)` in `text` → parameter N, `none` for 0 or past the list (include_resolve.hpp
// applyIncludeParameters; anything else, `(pX)` included, stays as written).
std::string substitute(std::string_view text, const std::vector<std::string>& params) {
  if (params.empty()) return std::string(text);
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t j = i + 2;
    if (i + 3 < text.size() && text[i] == '(' && text[i + 1] == 'p' && std::isdigit(static_cast<unsigned char>(text[j]))) {
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      if (j < text.size() && text[j] == ')') {
        const std::string_view digits = text.substr(i + 2, j - i - 2);
        std::size_t n = 0;
        bool fits = digits.size() <= 18;
        for (char c : digits) n = n * 10 + static_cast<std::size_t>(c - '0');
        out += fits && n >= 1 && n <= params.size() ? params[n - 1] : "none";
        i = j + 1;
        continue;
      }
    }
    out.push_back(text[i++]);
  }
  return out;
}

glm::dvec3 turn_y(const glm::dvec3& p, double degrees) {
  const double a = degrees * (3.14159265358979323846 / 180.0);
  return {p.x * std::cos(a) + p.z * std::sin(a), p.y, -p.x * std::sin(a) + p.z * std::cos(a)};
}

// std::stod: leading white space, then the longest number strtod reads; nothing read is a failure.
std::optional<double> leading_stod(const std::string& s) {
  const char* begin = s.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (end == begin) return std::nullopt;
  return v;
}

// A file's placement by the parameters it was included with (compose_pack_models.hpp
// placementTransformFromParameters): all four resolved, or none applied.
struct Placement {
  glm::dvec3 offset{0.0};
  double turn = 0;
};
std::optional<Placement> resolve(const std::array<std::uint8_t, 4>& at, const std::vector<std::string>& params) {
  double v[4] = {0, 0, 0, 0};
  for (std::size_t k = 0; k < 4; ++k) {
    if (at[k] == 0) continue;
    if (at[k] > params.size()) return std::nullopt;
    auto x = leading_stod(params[at[k] - 1]);
    if (!x) return std::nullopt;
    v[k] = *x;
  }
  return Placement{{v[0], v[1], v[2]}, v[3]};
}

void place(std::vector<PackModel>& models, const std::array<std::uint8_t, 4>& at, const std::vector<std::string>& params) {
  const auto p = resolve(at, params);
  if (!p) return;
  for (PackModel& m : models) {
    m.location = turn_y(m.location, p->turn) + p->offset;
    m.angles.y += p->turn;
  }
}

// compose_pack_models.hpp instantiateModels: parameters into name (then lower case), file and
// texture; then the include site's rotate about Y, scale (its non-zero parts) and origin, its
// rotate added to the angles; then the file's own placement.
std::vector<PackModel> instantiate(std::vector<PackModel> models, const Entry& e, const IncludeSite* site,
                                   const std::vector<std::string>& params) {
  if (!params.empty())
    for (PackModel& m : models) {
      m.name = lower(substitute(m.name, params));
      m.file = substitute(m.file, params);
      m.texture = substitute(m.texture, params);
    }
  if (site && !site->empty)
    for (PackModel& m : models) {
      glm::dvec3 p = turn_y(m.location, site->rotation.y);
      for (int k = 0; k < 3; ++k)
        if (site->scale[k] != 0) p[k] *= site->scale[k];
      m.location = p + site->origin;
      m.angles += site->rotation;
    }
  if (e.placed()) place(models, e.placement, params);
  return models;
}

bool inc_file(std::string_view token) { return token.size() >= 4 && iequals(token.substr(token.size() - 4), ".inc"); }

// Paths are keys under the scenery folder: `/`-separated, `.` and `..` folded (lexically_normal).
std::string normal(std::string_view path) {
  std::vector<std::string_view> parts;
  while (!path.empty()) {
    const std::size_t cut = path.find('/');
    const std::string_view part = path.substr(0, cut);
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..") parts.pop_back();
      else parts.push_back(part);
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    if (cut == std::string_view::npos) break;
    path.remove_prefix(cut + 1);
  }
  std::string out;
  for (std::string_view p : parts) out += (out.empty() ? "" : "/") + std::string(p);
  return out;
}

std::string with_extension(const std::string& path, std::string_view ext) {
  const std::size_t slash = path.rfind('/');
  const std::size_t name = slash == std::string::npos ? 0 : slash + 1;
  const std::size_t dot = path.rfind('.');
  const bool has = dot != std::string::npos && dot > name && path.substr(name) != "..";
  return (has ? path.substr(0, dot) : path) + std::string(ext);
}

// `.inc` files read on a second thread while the composer places the ones before them: reading
// them is most of a model-heavy root's compose, and placing them keeps one core only. A file is
// read from its bytes alone, so what comes back is what the composer would have read itself.
// The caller reads a file no thread has started on, and reads later ones while it waits (in the
// browser a thread may not start until the worker's event loop runs, so the caller never relies
// on it, and the thread keeps the shared state alive rather than being waited for at the end).
class ReadAhead {
 public:
  struct Read {
    Interpreted in;
    std::uint64_t size = 0;  // of its bytes
  };
  ReadAhead() : state_(std::make_shared<State>()) {}
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;
  ~ReadAhead() {
    {
      std::lock_guard lock(state_->mutex);
      state_->stopping = true;
      // What is left was passed over; one being read is let go by its reader.
      state_->jobs.remove_if([](const Job& j) { return !j.started || j.read; });
    }
    state_->ready.notify_all();
  }

  // Files queued and not passed over.
  std::size_t held() const {
    std::lock_guard lock(state_->mutex);
    return static_cast<std::size_t>(std::count_if(state_->jobs.begin(), state_->jobs.end(), [](const Job& j) { return !j.dropped; }));
  }
  bool holds(const std::string& path) const {
    std::lock_guard lock(state_->mutex);
    return std::any_of(state_->jobs.begin(), state_->jobs.end(), [&](const Job& j) { return !j.dropped && j.path == path; });
  }

  void queue(std::string path, std::vector<std::uint8_t> bytes) {
    {
      std::lock_guard lock(state_->mutex);
      const std::size_t size = bytes.size();
      state_->jobs.push_back(Job{std::move(path), std::move(bytes), size, std::nullopt, false, false});
    }
    if (!tried_) {
      tried_ = true;
      try {
        std::thread([state = state_] { state->run(); }).detach();
      } catch (const std::system_error&) {
        // none: take() reads each file itself
      }
    }
    state_->ready.notify_all();
  }

  // The file's read, if it was queued: read here if not yet started, else waited for, the caller
  // reading files queued after it meanwhile. Files queued before it were passed over (the
  // composer found them missing, or met them some other way): they are dropped.
  std::optional<Read> take(const std::string& path) {
    State& s = *state_;
    std::unique_lock lock(s.mutex);
    auto it = std::find_if(s.jobs.begin(), s.jobs.end(), [&](const Job& j) { return !j.dropped && j.path == path; });
    if (it == s.jobs.end()) return std::nullopt;
    for (auto before = s.jobs.begin(); before != it;) {
      if (before->started && !before->read) {
        before->dropped = true;  // being read: let go when done
        ++before;
      } else {
        before = s.jobs.erase(before);
      }
    }
    Read out;
    out.size = it->size;
    if (!it->started) s.read(lock, it);
    while (!it->read) {
      auto next = std::find_if(s.jobs.begin(), s.jobs.end(), [](const Job& j) { return !j.started; });
      if (next != s.jobs.end()) s.read(lock, next);
      else s.done.wait(lock);
    }
    out.in = std::move(*it->read);
    s.jobs.erase(it);
    return out;
  }

 private:
  struct Job {
    std::string path;
    std::vector<std::uint8_t> bytes;  // let go once read
    std::size_t size = 0;             // reported when taken
    std::optional<Interpreted> read;
    bool started = false;
    bool dropped = false;
  };
  struct State {
    std::mutex mutex;
    std::condition_variable ready, done;
    std::list<Job> jobs;  // a list: a job stays where it is while others come and go
    bool stopping = false;

    void run() {
      std::unique_lock lock(mutex);
      for (;;) {
        auto next = jobs.end();
        ready.wait(lock, [&] {
          next = std::find_if(jobs.begin(), jobs.end(), [](const Job& j) { return !j.started; });
          return stopping || next != jobs.end();
        });
        if (stopping) return;
        if (!read(lock, next)) return;  // out of memory, say: the caller reads the rest
      }
    }
    // Reads a job not started, the lock let go meanwhile (none but a dropped job is erased while
    // it is read). False if the read threw: the job is left to be read again.
    bool read(std::unique_lock<std::mutex>& lock, std::list<Job>::iterator job) {
      job->started = true;
      const std::span<const std::uint8_t> bytes = job->bytes;
      const std::string name = job->path;
      lock.unlock();
      std::optional<Interpreted> in;
      try {
        in = read_whole(bytes, name, [](double) {});
      } catch (...) {
        if (std::this_thread::get_id() == caller) throw;
      }
      lock.lock();
      if (!in) {
        job->started = false;  // the caller, maybe waiting on it, reads it
        done.notify_all();
        return false;
      }
      if (job->dropped) {
        jobs.erase(job);
      } else {
        job->read = std::move(in);
        std::vector<std::uint8_t>().swap(job->bytes);
      }
      done.notify_all();
      return true;
    }
    const std::thread::id caller = std::this_thread::get_id();
  };

  std::shared_ptr<State> state_;
  bool tried_ = false;
};

class Composer {
 public:
  Composer(std::span<const std::uint8_t> root, const RootPackOptions& options) : root_text_(root), options_(options) {}

  Result<PackModels> run() {
    Item root;
    root.path = normal(options_.root_path);
    root.relative = root.path;
    known_ = root_text_.size();
    queue_.push_back(std::move(root));
    while (!queue_.empty()) {
      Item item = std::move(queue_.front());
      queue_.pop_front();
      if (Error e = process(std::move(item))) return e;
    }
    return std::move(out_);
  }
  // Every include not found under any of the names the writer tries, as it first asked for it.
  const std::vector<std::string>& missing() const { return missing_; }

 private:
  struct Plan {
    IncludeSite include;
    std::string relative;  // the file it was included from
    std::vector<std::string> suffix;
  };
  struct Item {
    std::string path, relative;
    std::vector<std::string> stack;
    std::optional<IncludeSite> prefix;
    std::vector<std::string> params;
    std::optional<std::pair<std::array<std::uint8_t, 4>, std::vector<std::string>>> pending;
  };

  void warn(std::string what) {
    if (options_.warnings) options_.warnings->push_back(std::move(what));
  }

  // A file under the scenery folder, also asked for as `scenery/…` (a dropped game folder, or
  // the files a document kept under the names it asked for them by).
  std::unique_ptr<ByteSource> open(const std::string& path) {
    if (!options_.files || path.empty()) return nullptr;
    return options_.files->open_quietly({path, "scenery/" + path});
  }
  bool exists(const std::string& path) {
    if (path == normal(options_.root_path)) return true;
    if (auto it = exists_.find(path); it != exists_.end()) return it->second;
    auto source = open(path);
    if (source) known_ += source->size();
    return exists_[path] = source != nullptr;
  }
  void report(std::uint64_t done) {
    if (options_.progress) options_.progress(done, known_);
  }

  // include_resolve.hpp resolveIncludeSourcePath.
  // `quiet`: a path asked for ahead of time, not counted missing (resolved again when used).
  std::string resolve_path(const std::string& relative, const std::string& token, bool quiet = false) {
    std::string ref = token;
    for (char& c : ref) c = c == '\\' ? '/' : c;
    ref.erase(0, ref.find_first_not_of('$') == std::string::npos ? ref.size() : ref.find_first_not_of('$'));
    const bool bare = ref.find('/') == std::string::npos;
    std::string primary = ref;
    if (bare)
      if (const std::size_t slash = relative.rfind('/'); slash != std::string::npos) primary = relative.substr(0, slash + 1) + ref;
    primary = normal(primary);
    const auto first_of = [&](const std::string& path) -> std::optional<std::string> {
      if (exists(path)) return path;
      for (std::string_view ext : {".scm", ".inc", ".scn"})
        if (std::string c = with_extension(path, ext); exists(c)) return c;
      return std::nullopt;
    };
    std::optional<std::string> found = first_of(primary);
    if (!found && bare && primary != normal(ref)) found = first_of(normal(ref));
    if (!found && !quiet && std::find(missing_.begin(), missing_.end(), primary) == missing_.end()) missing_.push_back(primary);
    return found ? *found : primary;
  }

  // The file's bytes, or nothing where it is missing.
  std::optional<std::vector<std::uint8_t>> bytes_of(const std::string& path) {
    if (path == normal(options_.root_path)) return std::vector<std::uint8_t>(root_text_.begin(), root_text_.end());
    auto source = open(path);
    if (!source) return std::nullopt;
    auto bytes = source->read_vector(0, source->size());
    if (!bytes) {
      warn(fmt::format("{}: {}", path, bytes.error().describe()));
      return std::nullopt;
    }
    return std::move(bytes).value();
  }

  // packEntryFor: an `.inc` (and the root) read whole; any other file by its include lines only.
  Result<Entry*> load(const std::string& path) {
    if (auto it = entries_.find(path); it != entries_.end()) return &it->second;
    Entry e;
    if (auto read = ahead_.take(path)) {
      done_ += read->size;
      Entry* entry = loaded(path, read->in, e);
      read_ahead();
      return entry;
    }
    auto bytes = bytes_of(path);
    if (!bytes) return &(entries_[path] = std::move(e));
    const std::uint64_t before = done_;
    done_ += bytes->size();
    const bool root = path == normal(options_.root_path);
    const bool big = bytes->size() > kStreamedFileSize;
    const bool whole = root || inc_file(path);
    std::vector<std::string_view> pieces;
    if (!whole || big) {
      pieces = writer_pieces(*bytes);
      const Flat kind = classify(pieces);
      if (kind == Flat::none && big && !whole)
        return Error{Errc::bad_value, 0, fmt::format("{}: over 4 MiB and not one model or include per line: the reference "
                                                     "writer refuses to read it, and its bake of this scenery fails", path)};
      if (kind != Flat::none || !whole) {
        // Its include lines alone: a big flat file of models loses them all, as in the writer.
        if (big && kind == Flat::models) warn(fmt::format("{}: over 4 MiB of one model per line: the reference writer reads none of them", path));
        for (std::string_view piece : pieces)
          if (starts_with_word(piece, "include"))
            if (auto inc = include_of(piece)) e.includes.push_back(std::move(*inc));
        report(done_);
        return &(entries_[path] = std::move(e));
      }
    }
    const double size = static_cast<double>(bytes->size());
    Interpreted in = read_whole(*bytes, path, [&](double f) { report(before + static_cast<std::uint64_t>(f * size)); });
    return loaded(path, in, e);
  }
  // A file read whole, kept.
  Entry* loaded(const std::string& path, Interpreted& in, Entry& e) {
    report(done_);
    keep_models(path, in, e);
    e.includes = std::move(in.include_sites);
    e.placement = in.placement;
    return &(entries_[path] = std::move(e));
  }

  // The root's own models count only if it holds nothing else (the bake of the root module
  // drops them otherwise, before the compose reads its document again); every other file's do.
  void keep_models(const std::string& path, Interpreted& in, Entry& e) const {
    if (path != normal(options_.root_path) || models_only(in)) e.models = std::move(in.exact_models);
  }

  // The models of a loaded file, to place (Entry says why the first use takes them).
  std::vector<PackModel> models_of(const std::string& path, Entry& e) {
    if (!e.taken) {
      if (e.models.empty()) return {};
      e.taken = true;
      return std::move(e.models);
    }
    if (!e.read_again) {
      // Placed again: read as load() read it, kept from now on.
      e.read_again = true;
      if (auto bytes = bytes_of(path)) {
        Interpreted in = read_whole(*bytes, path, [](double) {});
        keep_models(path, in, e);
      }
    }
    return e.models;
  }

  void sink(std::vector<PackModel>&& models) {
    for (const PackModel& m : models) out_.push_back(m);
  }

  // process_one: a file's `.inc` chains, then its own models; a single module include is
  // followed at once, several are queued.
  Error process(Item item) {
    std::size_t folds = 0;
    for (;;) {
      if (std::find(item.stack.begin(), item.stack.end(), item.path) != item.stack.end()) return {};
      if (!exists(item.path)) return {};
      auto loaded = load(item.path);
      if (!loaded) return loaded.error();
      Entry& e = **loaded;
      std::vector<PackModel> own = instantiate(models_of(item.path, e), e, item.prefix ? &*item.prefix : nullptr, item.params);
      if (item.pending) {
        place(own, item.pending->first, item.pending->second);
        item.pending.reset();
      }
      std::optional<Plan> fold;
      std::vector<Plan> fanout;
      const auto absorb = [&](const std::vector<const IncludeSite*>& modules, const std::string& relative,
                              const std::vector<std::string>& suffix) {
        if (modules.size() == 1) {
          if (!fold) fold = Plan{*modules[0], relative, suffix};
          return;
        }
        for (const IncludeSite* m : modules) fanout.push_back(Plan{*m, relative, suffix});
      };
      const auto submit = [&](const Plan& plan) {
        Item child;
        child.path = resolve_path(plan.relative, plan.include.file);
        child.relative = child.path;
        child.stack = item.stack;
        child.stack.push_back(item.path);
        child.prefix = plan.include;
        child.params = plan.include.params;
        child.pending = item.pending;
        queue_.push_back(std::move(child));
      };
      // walk_inc_chain: an `.inc`'s models, then on to the last `.inc` it includes, unless it
      // includes a module, which is followed instead.
      const auto walk = [&](const IncludeSite& start, std::string relative) -> Error {
        const IncludeSite* step = &start;
        std::vector<std::string> params = start.params;
        std::vector<std::string> suffix;
        for (;;) {
          const std::string path = resolve_path(relative, step->file);
          if (std::find(suffix.begin(), suffix.end(), path) != suffix.end() || !exists(path)) return {};
          auto inc = load(path);
          if (!inc) return inc.error();
          Entry& ie = **inc;
          if (ie.placed()) item.pending = {ie.placement, params};
          if (!ie.models.empty() || ie.taken) sink(instantiate(models_of(path, ie), ie, step, params));
          std::vector<const IncludeSite*> modules;
          const IncludeSite* next = nullptr;
          for (const IncludeSite& inner : ie.includes) {
            if (inc_file(inner.file)) next = &inner;
            else modules.push_back(&inner);
          }
          if (!modules.empty()) {
            absorb(modules, path, suffix);
            return {};
          }
          if (!next) return {};
          suffix.push_back(path);
          relative = path;
          params = next->params;
          step = next;
        }
      };
      // The `.inc` files this one includes are read ahead, in the order the walks will ask.
      ahead_paths_.clear();
      for (const IncludeSite& inc : e.includes)
        if (inc_file(inc.file)) ahead_paths_.push_back(resolve_path(item.relative, inc.file, true));
      read_ahead();
      const bool branching = e.includes.size() > 1;
      std::vector<const IncludeSite*> modules;
      for (const IncludeSite& inc : e.includes) {
        if (!inc_file(inc.file)) {
          modules.push_back(&inc);
          continue;
        }
        if (Error err = walk(inc, item.relative)) return err;
        if (fold && branching) {
          submit(*fold);
          fold.reset();
        }
      }
      absorb(modules, item.relative, {});
      if (fold && fanout.empty()) {
        sink(std::move(own));
        const std::string next = resolve_path(fold->relative, fold->include.file);
        if (next == item.path) return {};
        item.stack.push_back(item.path);
        item.path = next;
        item.relative = next;
        item.prefix = fold->include;
        item.params = fold->include.params;
        if (++folds >= 96) {  // kMaxChainFoldPerTask: the rest waits at the back of the queue
          queue_.push_back(std::move(item));
          return {};
        }
        continue;
      }
      for (const Plan& plan : fanout) submit(plan);
      sink(std::move(own));
      return {};
    }
  }

  // Queues the next of ahead_paths_ not yet read, up to RootPackOptions::read_ahead held.
  void read_ahead() {
    while (!ahead_paths_.empty() && ahead_.held() < options_.read_ahead) {
      const std::string path = std::move(ahead_paths_.front());
      ahead_paths_.pop_front();
      if (entries_.count(path) || ahead_.holds(path) || path == normal(options_.root_path) || !exists(path)) continue;
      auto bytes = bytes_of(path);
      if (!bytes || bytes->size() > kStreamedFileSize) continue;  // read as load() reads it, when asked
      ahead_.queue(path, std::move(*bytes));
    }
  }

  std::span<const std::uint8_t> root_text_;
  const RootPackOptions& options_;
  ReadAhead ahead_;
  std::deque<std::string> ahead_paths_;
  std::deque<Item> queue_;
  std::map<std::string, Entry> entries_;
  std::map<std::string, bool> exists_;
  PackModels out_;
  std::vector<std::string> missing_;
  std::uint64_t done_ = 0, known_ = 0;  // bytes of the files loaded, and of those found
};

}  // namespace

Result<PackModels> compose_root_pack(std::span<const std::uint8_t> root_text, const RootPackOptions& options) {
  Composer c(root_text, options);
  auto models = c.run();
  if (models && options.missing) *options.missing = c.missing();
  return models;
}

}  // namespace sceneria::scenery
