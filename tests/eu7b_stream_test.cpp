// Opening a module from fetched ranges and streaming its sections into a scene, as the browser
// worker does, with a counting "server" in place of HTTP.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>

#include <fmt/format.h>

#include "formats/eu7b/format.hpp"
#include "formats/eu7b/generator.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/stream.hpp"
#include "formats/eu7b/writer.hpp"
#include "io/byte_sink.hpp"
#include "io/byte_source.hpp"
#include "registry/registry.hpp"
#include "sample_files.hpp"
#include "scene/serialize.hpp"

namespace sceneria::eu7b {
namespace {

using stream::State;

struct Server {
  const std::vector<std::uint8_t>& file;
  std::uint64_t bytes = 0, requests = 0;
  std::vector<std::uint8_t> get(std::uint64_t begin, std::uint64_t end) {
    ++requests;
    bytes += end - begin;
    return {file.begin() + static_cast<std::ptrdiff_t>(begin), file.begin() + static_cast<std::ptrdiff_t>(end)};
  }
};

TEST(Eu7bStream, OpensFromRangesAndStreamsSectionsAroundTheCamera) {
  const auto file = eu7b::write_module(*eu7b::generate_module({.models = 300'000, .seed = 8})).value();
  Server server{file};
  RemoteModule stream(file.size(), "remote.eu7");
  for (int round = 0;; ++round) {
    ASSERT_LT(round, 50);
    auto need = stream.open();
    ASSERT_TRUE(need.ok()) << need.error().describe();
    if (!*need) break;
    stream.add_bytes((*need)->begin, server.get((*need)->begin, (*need)->end));
  }
  ASSERT_TRUE(stream.opened());
  const std::uint64_t pack = stream.module().pack()->payload_size;
  EXPECT_LE(server.bytes, file.size() - pack + 2 * 64 * 1024);  // the header pass skips PACK
  EXPECT_LT(server.requests, 20u);

  scene::Scene scene = stream.static_scene();
  const std::size_t static_objects = scene.objects.size();
  std::size_t static_instances = 0;
  for (const auto& s : scene.sections) static_instances += s.instances.size();

  // Frames at the start: request, "fetch", decode, apply one section per frame.
  const glm::dvec3 start = stream.start_position();
  std::vector<SectionId> cancel;
  std::size_t applied = 0;
  for (int frame = 0; frame < 200; ++frame) {
    for (const SectionRequest& r : stream.update(start, cancel)) {
      const auto bytes = server.get(r.begin, r.end);
      ASSERT_FALSE(stream.section_bytes(r.id, bytes));
    }
    stream.wait_for_decodes();
    if (auto delta = stream.apply_one(start)) {
      // Through the serialized form, as the worker posts it to the page.
      auto wire = scene::deserialize(scene::serialize(*delta));
      ASSERT_TRUE(wire.ok()) << wire.error().describe();
      auto changed = scene::merge_delta(scene, std::move(wire).value());
      ASSERT_TRUE(changed.ok()) << changed.error().describe();
      ++applied;
    }
  }
  EXPECT_EQ(applied, stream.streamer().resident());
  EXPECT_GT(applied, 10u);
  EXPECT_GE(stream.decoded_off_thread(), applied);  // on the pool's threads
  std::size_t instances = 0;
  for (const auto& s : scene.sections) instances += s.instances.size();
  EXPECT_GT(instances, static_instances + 10'000);
  EXPECT_EQ(scene.objects.size(), static_objects + (instances - static_instances));
  // Every streamed object is a PACK model with a distinct index.
  std::set<std::uint64_t> indices;
  for (std::size_t i = static_objects; i < scene.objects.size(); ++i) {
    EXPECT_EQ(scene.kinds[scene.objects[i].kind], "pack_models");
    indices.insert(scene.objects[i].index);
  }
  EXPECT_EQ(indices.size(), scene.objects.size() - static_objects);
  // A streamed model's record, for the inspector, matches where the scene put it.
  const scene::Object& picked = scene.objects[static_objects + 5];
  const auto record = stream.pack_record(picked.index);
  ASSERT_TRUE(record.is_object());
  EXPECT_NEAR(record["location"][0].get<double>(), picked.anchor.x, 1e-3);
  EXPECT_NEAR(record["location"][2].get<double>(), picked.anchor.z, 1e-3);

  // Fly 30 km away: the old sections are evicted and dropped from the scene.
  const glm::dvec3 far = start + glm::dvec3(0, 0, 30'000);
  for (int frame = 0; frame < 5; ++frame) stream.update(far, cancel);
  const auto evicted = stream.evict(far);
  EXPECT_EQ(evicted.size(), applied);
  for (SectionId id : evicted) EXPECT_GE(scene::drop_streamed(scene, id.row, id.col), 0);
  std::size_t left = 0;
  for (const auto& s : scene.sections) left += s.instances.size();
  EXPECT_EQ(left, static_instances);
  EXPECT_TRUE(stream.pack_record(picked.index).is_null());  // evicted: its fields are gone too
}

TEST(Eu7bStream, ABadSectionIsAnErrorAndTheRestGoesOn) {
  const auto file = eu7b::write_module(*eu7b::generate_module({.models = 20'000, .seed = 9})).value();
  RemoteModule stream(file.size(), "remote.eu7");
  stream.add_bytes(0, file);  // everything at once
  ASSERT_TRUE(stream.open().ok());
  ASSERT_TRUE(stream.opened());
  std::vector<SectionId> cancel;
  // A cold start asks for the nearest section alone; once it is applied, the rest follow.
  const auto first = stream.update(stream.start_position(), cancel);
  ASSERT_EQ(first.size(), 1u);
  ASSERT_FALSE(stream.section_bytes(first[0].id, std::span(file).subspan(first[0].begin, first[0].end - first[0].begin)));
  stream.wait_for_decodes();
  EXPECT_TRUE(stream.update(stream.start_position(), cancel).empty());  // decoded, not yet on screen
  ASSERT_TRUE(stream.apply_one(stream.start_position()));
  const auto requests = stream.update(stream.start_position(), cancel);
  ASSERT_GE(requests.size(), 2u);
  std::vector<std::uint8_t> garbage(requests[0].end - requests[0].begin, 0xEE);
  EXPECT_FALSE(stream.section_bytes(requests[0].id, garbage));  // queued; decoding fails later
  EXPECT_TRUE(stream.section_bytes(requests[1].id, std::vector<std::uint8_t>(3)));  // wrong length: at once
  for (std::size_t i = 2; i < requests.size(); ++i)
    EXPECT_FALSE(stream.section_bytes(requests[i].id, std::span(file).subspan(requests[i].begin, requests[i].end - requests[i].begin)));
  stream.wait_for_decodes();
  const auto errors = stream.take_errors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find(fmt::format("section {},{} could not be read", requests[0].id.row, requests[0].id.col)),
            std::string::npos) << errors[0];
  EXPECT_TRUE(stream.take_errors().empty());
  EXPECT_EQ(stream.streamer().state(requests[0].id), State::idle);
  EXPECT_EQ(stream.streamer().state(requests[1].id), State::idle);
  int applied = 0;
  while (stream.apply_one(stream.start_position())) ++applied;
  EXPECT_EQ(applied, static_cast<int>(requests.size()) - 2);
}

// Serves a stream until it is open, counting what it fetched.
void open_from(RemoteModule& stream, Server& server, std::uint64_t read_ahead) {
  for (int round = 0;; ++round) {
    ASSERT_LT(round, 200);
    auto need = stream.open(read_ahead);
    ASSERT_TRUE(need.ok()) << need.error().describe();
    if (!*need) break;
    stream.add_bytes((*need)->begin, server.get((*need)->begin, (*need)->end));
  }
}

// The header pass walks the chunk headers before it decodes: a walk that steps over a payload it
// will decode (TERR, bigger than a read-ahead) and then misses the header behind it fetches both
// at once, not the header now and the payload after the walk. Each read starts at the file's
// start, at a chunk header, or inside a payload that runs to the header the walk missed; none
// goes past PACK's start (the chunks after it are read after the first section).
TEST(Eu7bStream, AHeaderMissBringsThePayloadBeforeItThatWillBeRead) {
  const auto file = eu7b::write_module(*eu7b::generate_module({.models = 200'000, .seed = 7, .models_per_section = 2500})).value();
  MemorySource walk(file, "g.eu7");
  const auto container = eu7b::read_container(walk).value();
  const eu7b::ChunkInfo* terr = nullptr;
  for (const auto& c : container.chunks)
    if (c.id == eu7b::chunk::TERR) terr = &c;
  ASSERT_NE(terr, nullptr);
  constexpr std::uint64_t kReadAhead = 4096;
  ASSERT_GT(terr->payload_size(), 20 * kReadAhead);  // the walk's first two misses read 4× and 16× kReadAhead

  struct Traced : Server {
    std::vector<Span> spans;
  } server{{file}, {}};
  RemoteModule stream(file.size(), "remote.eu7");
  for (int round = 0;; ++round) {
    ASSERT_LT(round, 50);
    auto need = stream.open(kReadAhead);
    ASSERT_TRUE(need.ok()) << need.error().describe();
    if (!*need) break;
    server.spans.push_back(**need);
    stream.add_bytes((*need)->begin, server.get((*need)->begin, (*need)->end));
  }
  ASSERT_TRUE(stream.opened());
  std::string trace;
  for (const Span& s : server.spans) trace += fmt::format(" [{:#x}, {:#x})", s.begin, s.end);
  // The head (STRS's count), the chunks after STRS up to TERR's header (4× the read-ahead), then
  // TERR's payload with the headers behind it up to PACK's.
  ASSERT_EQ(server.spans.size(), 3u) << trace;
  EXPECT_EQ(server.spans[0].begin, 0u);
  EXPECT_EQ(server.spans[1].end - server.spans[1].begin, 4 * kReadAhead) << trace;
  EXPECT_GT(server.spans[2].begin, terr->payload_offset()) << trace;
  EXPECT_LT(server.spans[2].begin, terr->offset + terr->size) << trace;
  EXPECT_GE(server.spans[2].end, stream.module().pack()->payload_offset) << trace;
  EXPECT_EQ(stream.module().container.rest_offset, stream.module().pack()->payload_offset + stream.module().pack()->payload_size);
  EXPECT_LT(stream.module().container.rest_offset, file.size());  // traction, vehicles, events: not read yet
}

// The dense benchmark's layout (400 sections of 2,500 models, a big TERR before PACK): the first
// models come after three reads — the head, everything from STRS's end to PACK's header in one,
// the section under the camera — and no other section is asked for before that section is
// applied. The chunks after PACK follow in one read, their records as a delta the scene keeps.
TEST(Eu7bStream, TheFirstModelsComeAfterThreeReadsAndTheRecordsAfterPackAfterThem) {
  const auto generated = eu7b::generate_module({.models = 1'000'000, .seed = 5, .models_per_section = 2500}).value();
  const auto file = eu7b::write_module(generated).value();
  struct Traced : Server {
    std::vector<Span> spans;
    std::vector<std::uint8_t> take(Span s) {
      spans.push_back(s);
      return get(s.begin, s.end);
    }
  } server{{file}, {}};
  RemoteModule stream(file.size(), "remote.eu7", {.decode_threads = 0});
  stream.add_bytes(0, server.take({0, 16 * 1024}));  // the worker reads the head to tell the format
  for (int round = 0;; ++round) {
    ASSERT_LT(round, 50);
    auto need = stream.open();
    ASSERT_TRUE(need.ok()) << need.error().describe();
    if (!*need) break;
    stream.add_bytes((*need)->begin, server.take(**need));
  }
  ASSERT_TRUE(stream.opened());
  const eu7b::Module& m = stream.module();
  const std::uint64_t pack_end = m.pack()->payload_offset + m.pack()->payload_size;
  ASSERT_EQ(server.spans.size(), 2u);
  EXPECT_LT(server.spans[1].begin, m.pack()->payload_offset);
  EXPECT_GE(server.spans[1].end, m.pack()->payload_offset);
  const std::vector<ListInfo> before = stream.lists();
  auto has_list = [](const std::vector<ListInfo>& lists, std::string_view id) {
    return std::any_of(lists.begin(), lists.end(), [&](const ListInfo& l) { return l.id == id && l.count > 0; });
  };
  EXPECT_FALSE(has_list(before, "traction"));

  scene::Scene scene = stream.static_scene();
  const std::size_t static_objects = scene.objects.size();
  const glm::dvec3 start = stream.start_position();
  std::vector<SectionId> cancel;
  const auto first = stream.update(start, cancel);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_FALSE(stream.late_request(1 << 20));  // nothing late while the first section loads
  ASSERT_FALSE(stream.section_bytes(first[0].id, server.take({first[0].begin, first[0].end})));
  auto section = stream.apply_one(start);
  ASSERT_TRUE(section);
  EXPECT_FALSE(section->keeps_instances);
  ASSERT_TRUE(scene::merge_delta(scene, std::move(*section)).ok());
  EXPECT_EQ(server.spans.size(), 3u);
  // The head, the chunks before PACK within one 256 KiB read, the section: under 1 % of the file.
  EXPECT_LE(server.bytes, 16 * 1024 + 256 * 1024 + (first[0].end - first[0].begin));
  EXPECT_LT(server.bytes, file.size() / 100);

  // Then the chunks after PACK, before any name or other section.
  auto rest = stream.late_request(1 << 20);
  ASSERT_TRUE(rest);
  EXPECT_EQ(rest->begin, pack_end);
  EXPECT_EQ(rest->end, file.size());
  EXPECT_FALSE(stream.late_request(1 << 20));  // one late read at a time
  EXPECT_FALSE(stream.take_described());
  ASSERT_FALSE(stream.late_bytes(rest->begin, server.take(*rest)));
  EXPECT_TRUE(stream.take_described());
  EXPECT_FALSE(stream.take_described());
  // Their names first, if they are past what is loaded; then the delta.
  std::optional<scene::Scene> records;
  for (int round = 0; round < 20 && !records; ++round) {
    if (auto names = stream.late_request(1 << 20)) ASSERT_FALSE(stream.late_bytes(names->begin, server.take(*names)));
    records = stream.apply_one(start);
  }
  ASSERT_TRUE(records);
  EXPECT_TRUE(records->keeps_instances);
  EXPECT_EQ(records->object_base, scene.objects.size());
  const auto wire = scene::deserialize(scene::serialize(*records));  // as the worker posts it
  ASSERT_TRUE(wire.ok()) << wire.error().describe();
  EXPECT_TRUE(wire->keeps_instances);
  ASSERT_TRUE(scene::merge_delta(scene, std::move(*records)).ok());

  // What the whole file's scene has, the streamed one has now: every traction wire, vehicle,
  // sound, launcher and power source, as objects of their kinds.
  const std::vector<ListInfo> after = stream.lists();
  EXPECT_TRUE(has_list(after, "traction"));
  MemorySource whole_source(std::span<const std::uint8_t>(file), "whole.eu7");
  const Module whole = read_module(whole_source).value();
  const scene::Scene expected = SceneBuilder(whole).build(false);
  std::map<std::string, std::size_t> streamed_kinds, whole_kinds;
  for (const scene::Object& o : scene.objects)
    if (scene.kinds[o.kind] != "pack_models") ++streamed_kinds[scene.kinds[o.kind]];
  for (const scene::Object& o : expected.objects) ++whole_kinds[expected.kinds[o.kind]];
  EXPECT_EQ(streamed_kinds, whole_kinds);
  EXPECT_GT(whole_kinds["traction"], 10u);
  EXPECT_GT(whole_kinds["dynamics"], 0u);
  EXPECT_GT(scene.objects.size(), static_objects);
  // The records stay when the section they lie in streams out.
  std::size_t kept = 0, kept_expected = 0;
  for (const scene::Section& s : scene.sections) kept += s.static_instances;
  for (const scene::Section& s : expected.sections) kept_expected += s.instances.size();
  EXPECT_EQ(kept, kept_expected);
}

TEST(Eu7bStream, ReadsOnlyTheStringsTheHeaderUsesThenTheRestWhenIdle) {
  const auto generated = eu7b::generate_module({.models = 200'000, .seed = 4}).value();
  const auto file = eu7b::write_module(generated).value();
  Server server{file};
  RemoteModule stream(file.size(), "remote.eu7");
  open_from(stream, server, 4096);
  ASSERT_TRUE(stream.opened());
  const eu7b::Module& m = stream.module();
  // Thousands of model names follow the header's strings: none of them is read to open the file.
  ASSERT_EQ(stream.string_count(), generated.strings.size());
  EXPECT_GE(stream.strings_loaded(), m.strings_referenced);
  EXPECT_GT(m.strings_referenced, 100u);  // tracks, events, cells… have names
  EXPECT_LT(stream.strings_loaded(), stream.string_count() / 10);
  std::uint64_t strs_payload = 0;
  for (const auto& c : m.container.chunks)
    if (c.id == eu7b::chunk::STRS) strs_payload = c.payload_size();
  const std::uint64_t header_without_strings = file.size() - m.pack()->payload_size - strs_payload;
  EXPECT_GT(strs_payload, 100'000u);
  // Past the head a miss reads 4×, 16×, … the read-ahead (at most 256×): the last may overshoot.
  EXPECT_LE(server.bytes, header_without_strings + strs_payload / 10 + 256 * 4096);
  for (std::size_t i = 0; i < stream.strings_loaded(); ++i) ASSERT_EQ(m.strings[i], generated.strings[i]) << i;

  // Sections around the start; names are not wanted while they load.
  const glm::dvec3 start = stream.start_position();
  std::vector<SectionId> cancel;
  auto serve_sections = [&] {
    for (const SectionRequest& r : stream.update(start, cancel)) {
      const auto bytes = server.get(r.begin, r.end);
      ASSERT_FALSE(stream.section_bytes(r.id, bytes));
    }
  };
  serve_sections();
  EXPECT_FALSE(stream.strings_request());
  stream.wait_for_decodes();
  while (stream.apply_one(start)) serve_sections(), stream.wait_for_decodes();
  ASSERT_EQ(stream.streamer().in_flight(), 0u);
  ASSERT_GT(stream.streamer().resident(), 0u);
  // A streamed model's name shows as "…" until its string arrives.
  std::uint64_t named = UINT64_MAX;
  for (std::uint64_t i = 0; i < 200'000 && named == UINT64_MAX; ++i) {
    const auto r = stream.pack_record(i);
    if (r.is_object() && r["name"] == "…") named = i;
  }
  ASSERT_NE(named, UINT64_MAX);
  const std::string file_name = stream.pack_record(named)["file"].get<std::string>();
  EXPECT_TRUE(file_name.ends_with(".t3d") || file_name.ends_with(".e3d")) << file_name;

  // The record lists (the Document side of the stream) read the live module: the string list and
  // its search show "…" for a name not loaded yet, and the name once it has arrived.
  const std::uint64_t last = stream.string_count() - 1;
  const auto before = stream.rows("strings", last, 1);
  ASSERT_EQ(before.size(), 1u);
  EXPECT_EQ(before[0]["name"], "…");
  const std::string last_name(generated.strings[static_cast<std::size_t>(last)]);
  EXPECT_TRUE(stream.search("strings", last_name, 5).empty());

  // Idle: the rest of STRS comes in pieces (of at most 16 KiB here), one request at a time.
  int pieces = 0;
  while (auto piece = stream.strings_request(16 * 1024)) {
    ASSERT_LE(piece->end - piece->begin, 16 * 1024u);
    EXPECT_FALSE(stream.strings_request());  // one at a time
    ASSERT_FALSE(stream.strings_bytes(piece->begin, server.get(piece->begin, piece->end)));
    ++pieces;
  }
  EXPECT_GT(pieces, 3);
  ASSERT_EQ(stream.strings_loaded(), stream.string_count());
  for (std::size_t i = 0; i < m.strings.size(); ++i) ASSERT_EQ(m.strings[i], generated.strings[i]) << i;
  const auto record = stream.pack_record(named);
  EXPECT_NE(record["name"], "…");
  EXPECT_EQ(stream.rows("strings", last, 1)[0]["name"], last_name);
  EXPECT_FALSE(stream.search("strings", last_name, 5).empty());
  EXPECT_EQ(stream.record("pack_models", named), record);  // the Document's record is the stream's
  EXPECT_TRUE(record["name"].get<std::string>().starts_with("bud_") || record["name"].get<std::string>().starts_with("obj_"))
      << record["name"];
}

// A module whose PACK models' file names sit at the very end of STRS, after every other name.
std::vector<std::uint8_t> files_last_module(std::size_t& files) {
  auto m = eu7b::generate_module({.models = 30'000, .seed = 5, .version = 7}).value();
  std::map<eu7b::Sid, eu7b::Sid> moved;
  for (auto& section : m.pack()->sections)
    for (auto& model : section.solo.models) {
      auto [it, fresh] = moved.try_emplace(model.model_file, 0);
      if (fresh) {
        it->second = static_cast<eu7b::Sid>(m.strings.size());
        m.strings.push_back(std::string(m.strings[model.model_file]));
      }
      model.model_file = it->second;
    }
  for (auto& c : m.chunks)
    if (auto* strs = std::get_if<eu7b::StringsChunk>(&c.data)) strs->count = static_cast<std::uint32_t>(m.strings.size());
  files = moved.size();
  return eu7b::write_module(m).value();
}

TEST(Eu7bStream, ASectionWaitsForItsModelFileNames) {
  std::size_t files = 0;
  const auto file = files_last_module(files);
  ASSERT_GT(files, 3u);
  Server server{file};
  RemoteModule stream(file.size(), "remote.eu7");
  open_from(stream, server, 4096);
  ASSERT_TRUE(stream.opened());
  ASSERT_LT(stream.strings_loaded(), stream.string_count() - files);
  const glm::dvec3 start = stream.start_position();
  std::vector<SectionId> cancel;
  const auto requests = stream.update(start, cancel);
  ASSERT_FALSE(requests.empty());
  for (const SectionRequest& r : requests) ASSERT_FALSE(stream.section_bytes(r.id, server.get(r.begin, r.end)));
  stream.wait_for_decodes();
  // Decoded, but held back (still "in flight") until the names arrive; asked for at once.
  EXPECT_FALSE(stream.apply_one(start));
  EXPECT_EQ(stream.streamer().in_flight(), requests.size());
  int pieces = 0;
  while (stream.streamer().ready() == 0) {
    auto piece = stream.strings_request(4096);
    ASSERT_TRUE(piece) << "a waiting section must make strings urgent";
    ASSERT_FALSE(stream.strings_bytes(piece->begin, server.get(piece->begin, piece->end)));
    stream.update(start, cancel);
    ++pieces;
  }
  EXPECT_GT(pieces, 1);
  EXPECT_EQ(stream.strings_loaded(), stream.string_count());
  auto delta = stream.apply_one(start);
  ASSERT_TRUE(delta);
  ASSERT_FALSE(delta->meshes.empty());
  for (const auto& mesh : delta->meshes) EXPECT_TRUE(mesh.name.ends_with("3d")) << mesh.name;
}

TEST(Eu7bStream, ABrokenStrsFailsTheSectionsWaitingForItsNamesWithAMessage) {
  std::size_t files = 0;
  auto file = files_last_module(files);
  // Break the length of a string between the header's strings and the model file names.
  std::uint64_t at = 0;
  for (std::uint64_t offset = 8; offset < file.size();) {
    std::uint32_t id = 0, size = 0;
    std::memcpy(&id, &file[offset], 4);
    std::memcpy(&size, &file[offset + 4], 4);
    if (id == eu7b::chunk::STRS) {
      std::uint32_t count = 0;
      std::memcpy(&count, &file[offset + 8], 4);
      at = offset + 12;
      for (std::uint32_t i = 0; i + files + 10 < count; ++i) {
        std::uint32_t length = 0;
        std::memcpy(&length, &file[at], 4);
        at += 4 + length;
      }
      break;
    }
    offset += size;
  }
  ASSERT_GT(at, 0u);
  const std::uint32_t huge = 0x7FFFFFFF;
  std::memcpy(&file[at], &huge, 4);

  Server server{file};
  RemoteModule stream(file.size(), "remote.eu7");
  open_from(stream, server, 4096);
  ASSERT_TRUE(stream.opened());
  const glm::dvec3 start = stream.start_position();
  std::vector<SectionId> cancel;
  auto requests = stream.update(start, cancel);
  ASSERT_EQ(requests.size(), 1u);  // a cold start: the nearest section alone
  ASSERT_FALSE(stream.section_bytes(requests[0].id, server.get(requests[0].begin, requests[0].end)));
  stream.wait_for_decodes();
  Error broken;
  while (!broken) {
    auto piece = stream.strings_request(4096);
    ASSERT_TRUE(piece);
    broken = stream.strings_bytes(piece->begin, server.get(piece->begin, piece->end));
  }
  EXPECT_EQ(broken.code, Errc::truncated);
  EXPECT_EQ(broken.offset, at);
  EXPECT_FALSE(stream.strings_request());  // no more asking
  // The waiting section failed with a message; one decoded later does not wait forever either.
  EXPECT_EQ(stream.streamer().state(requests[0].id), State::idle);
  const auto next = stream.update(start, cancel);  // the next nearest, now that the first failed
  ASSERT_FALSE(next.empty());
  requests.push_back(next[0]);
  ASSERT_FALSE(stream.section_bytes(requests[1].id, server.get(requests[1].begin, requests[1].end)));
  stream.wait_for_decodes();
  EXPECT_EQ(stream.streamer().state(requests[1].id), State::idle);
  const auto errors = stream.take_errors();
  ASSERT_EQ(errors.size(), 2u);
  for (const auto& e : errors) EXPECT_NE(e.find("needs model names STRS could not give"), std::string::npos) << e;
}

TEST(Eu7bStream, DecodesOnTheCallersThreadWhenAskedTo) {
  const auto file = eu7b::write_module(*eu7b::generate_module({.models = 20'000, .seed = 9})).value();
  StreamSettings settings;
  settings.decode_threads = 0;
  RemoteModule stream(file.size(), "remote.eu7", settings);
  stream.add_bytes(0, file);
  ASSERT_TRUE(stream.open().ok());
  std::vector<SectionId> cancel;
  const auto requests = stream.update(stream.start_position(), cancel);
  ASSERT_FALSE(requests.empty());
  const auto& r = requests.front();
  ASSERT_FALSE(stream.section_bytes(r.id, std::span(file).subspan(r.begin, r.end - r.begin)));
  EXPECT_EQ(stream.streamer().state(r.id), State::ready);  // no wait needed
  EXPECT_EQ(stream.decoded_off_thread(), 0u);
}

}  // namespace
}  // namespace sceneria::eu7b

namespace sceneria::eu7b {
namespace {

TEST(Eu7bStream, AsksForThePrototypesModelFilesNextToIt) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto file = test::read_file(test::samples_dir() / "maszyna/eu7/wrapinc_linia053.v9-pack6.eu7");
  RemoteModule stream(file.size(), "wrapinc.eu7");
  stream.add_bytes(0, file);
  ASSERT_TRUE(stream.open().ok());
  ASSERT_TRUE(stream.opened());
  const auto queries = stream.take_asset_queries();
  ASSERT_EQ(queries.size(), 11u);  // the 11 prototypes' model files (reference decode: PROT[0..10])
  const auto d1 = std::find_if(queries.begin(), queries.end(), [](const auto& q) { return q.label == "ip/pkp/D1.t3d"; });
  ASSERT_NE(d1, queries.end());
  EXPECT_EQ(d1->candidates, (std::vector<std::string>{"ip/pkp/d1.e3d", "models/ip/pkp/d1.e3d", "ip/pkp/d1.t3d", "models/ip/pkp/d1.t3d"}));
  EXPECT_TRUE(stream.take_asset_queries().empty());  // each file once
  // The PACK models are a list (for labels and counts) that is not browsed as rows.
  const auto lists = stream.lists();
  ASSERT_FALSE(lists.empty());
  EXPECT_EQ(lists.front().id, "pack_models");
  EXPECT_EQ(lists.front().count, 77u);  // the reference decode's decoded_models, summed
  EXPECT_FALSE(lists.front().browsable);
  EXPECT_TRUE(stream.missing_assets().empty());

  // The PACK section's solo models are asked for once the section is in: with the header's, the
  // same 39 model files the whole-file open checks (header_model_files with PACK).
  std::set<std::string> labels;
  for (const auto& q : queries) labels.insert(q.label);
  std::vector<SectionId> cancel;
  for (const auto& [id, state] : stream.streamer().states()) {  // the camera visits every section
    const glm::dvec3 at = kSectionGrid.origin(id.row, id.col) + glm::dvec3(500, 0, 500);
    for (int tick = 0; tick < 20; ++tick) {
      for (const auto& r : stream.update(at, cancel))
        ASSERT_FALSE(stream.section_bytes(r.id, std::span(file).subspan(r.begin, r.end - r.begin)));
      while (auto late = stream.late_request(1 << 20))
        ASSERT_FALSE(stream.late_bytes(late->begin, std::span(file).subspan(late->begin, late->end - late->begin)));
      stream.wait_for_decodes();
      stream.apply_one(at);
      for (const auto& q : stream.take_asset_queries()) EXPECT_TRUE(labels.insert(q.label).second) << q.label;
    }
  }
  MemorySource src(file, "wrapinc.eu7");
  const Module whole = read_module(src, {.load_pack = true, .decode_pack = true}).value();
  const auto all = header_model_files(whole, true);
  EXPECT_EQ(labels, std::set<std::string>(all.begin(), all.end()));
  EXPECT_EQ(labels.size(), 39u);  // the reference decode's distinct model files
  EXPECT_TRUE(stream.take_asset_queries().empty());
  stream.asset_missing("pm/akademik1.t3d");
  EXPECT_EQ(stream.missing_assets(), (std::vector<std::string>{"pm/akademik1.t3d"}));
}

// An export of a module opened by URL reads its sections through the reader the caller answers
// at once (the worker's synchronous fetch), each once, a section at a time, and writes what an
// export of the whole file writes, byte for byte; an area reads only the sections it reaches.
TEST(Eu7bStream, ExportsReadSectionsAsTheyAreReachedAndWriteWhatTheWholeFileWrites) {
  const auto file = eu7b::write_module(*eu7b::generate_module({.models = 60'000, .seed = 2})).value();
  Server server{file};
  RemoteModule stream(file.size(), "remote.eu7");
  open_from(stream, server, 4096);
  ASSERT_TRUE(stream.opened());
  const Writer* glb = find_format("eu7b")->writer_for("glb");
  WriteOptions options;
  options.name = "remote.glb";
  std::vector<std::uint8_t> out;
  VectorByteSink refused_sink(out);
  const Error refused = glb->stream(stream, options, refused_sink);  // no reader yet
  ASSERT_TRUE(refused);
  EXPECT_NE(refused.message.find("read at once"), std::string::npos) << refused.message;

  std::uint64_t section_reads = 0;
  std::set<std::uint64_t> read_at;
  const std::uint64_t pack_begin = stream.module().pack()->payload_offset;
  stream.set_read_now([&](std::uint64_t offset, std::uint64_t size) -> Result<std::vector<std::uint8_t>> {
    if (offset >= pack_begin && offset < pack_begin + stream.module().pack()->payload_size) ++section_reads, read_at.insert(offset);
    return server.get(offset, std::min<std::uint64_t>(offset + size, file.size()));
  });
  MemorySource whole_file(std::span<const std::uint8_t>(file), "remote.eu7");
  auto whole = open_document(whole_file, {.deferred = true});
  ASSERT_TRUE(whole.ok());
  for (const std::string& area : {std::string(), std::string("-300,200,600")}) {
    SCOPED_TRACE(area);
    WriteOptions o = options;
    if (!area.empty()) o.params["area"] = area;
    section_reads = 0;
    read_at.clear();
    std::vector<std::uint8_t> remote, local;
    VectorByteSink remote_sink(remote), local_sink(local);
    const Error e = glb->stream(stream, o, remote_sink);
    ASSERT_FALSE(e) << e.describe();
    ASSERT_FALSE(glb->stream(**whole, o, local_sink));
    EXPECT_GT(remote.size(), 100000u);
    EXPECT_TRUE(remote == local) << remote.size() << " vs " << local.size();
    // A .glb walks the sections twice (its instance data follows its JSON): each read once a walk.
    const std::size_t sections = stream.streamer().states().size();
    EXPECT_EQ(section_reads, 2 * read_at.size());
    if (area.empty()) {
      EXPECT_EQ(read_at.size(), sections);
    } else {
      EXPECT_LT(read_at.size(), sections / 2);
      EXPECT_GT(read_at.size(), 0u);
    }
  }
}

}  // namespace
}  // namespace sceneria::eu7b
