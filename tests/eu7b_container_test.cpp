// EU7B container: header, chunk walk and STRS, against every sample and on crafted bad bytes.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "formats/eu7b/generator.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/writer.hpp"
#include "io/byte_source.hpp"
#include "sample_files.hpp"

namespace sceneria::eu7b {
namespace {

using test::eu7_samples;
using test::read_file;

std::vector<std::uint8_t> u32le(std::uint32_t v) {
  std::vector<std::uint8_t> out(4);
  std::memcpy(out.data(), &v, 4);
  return out;
}

std::vector<std::uint8_t> concat(std::initializer_list<std::vector<std::uint8_t>> parts) {
  std::vector<std::uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

std::vector<std::uint8_t> bytes(std::string_view s) { return {s.begin(), s.end()}; }

Result<Container> walk(const std::vector<std::uint8_t>& b) {
  MemorySource src(b, "crafted.eu7");
  return read_container(src);
}

Result<Module> module_of(const std::vector<std::uint8_t>& b) {
  MemorySource src(b, "crafted.eu7");
  return read_module(src);
}

Result<Module> module_of_lazy(const std::vector<std::uint8_t>& b) {
  MemorySource src(b, "crafted.eu7");
  return read_module(src, {.lazy_strings = true});
}

std::vector<std::uint8_t> strs_module(const std::vector<std::uint8_t>& strs_payload, std::uint32_t version = 6) {
  const RawChunk chunks[] = {{chunk::STRS, strs_payload}};
  return write_container(version, chunks);
}

// ---- every sample ----

TEST(Eu7bSamples, FindsAllSampleModules) {
  SCENERIA_REQUIRE_SAMPLES();
  // 13 in maszyna/eu7 (6 current + 7 historic), 2 in allnodes, 4 in terrain, 7 in trees (six
  // writers' roots and the child module), 6 in packcounts (one per writer), 1 in vehicles.
  EXPECT_EQ(eu7_samples().size(), 33u);
}

TEST(Eu7bSamples, ChunkWalkMatchesReferenceDecodes) {
  SCENERIA_REQUIRE_SAMPLES();
  int with_chunk_table = 0;
  for (const auto& path : eu7_samples()) {
    SCOPED_TRACE(path.string());
    const auto file = read_file(path);
    MemorySource src(file, path.string());
    auto module = read_module(src);
    ASSERT_TRUE(module.ok()) << module.error().describe();
    const auto ref = test::read_reference_decode(path);

    ASSERT_TRUE(ref.has("version"));
    EXPECT_EQ(module->container.version, ref.number("version"));
    const std::uint64_t strings = ref.has("strings") ? ref.number("strings") : ref.number("strs_count");
    EXPECT_EQ(module->strings.size(), strings);
    EXPECT_EQ(module->container.file_size, file.size());

    // Chunks tile the file from offset 8 to the end, STRS first (the writer always does this).
    ASSERT_FALSE(module->container.chunks.empty());
    EXPECT_EQ(module->container.chunks.front().id, chunk::STRS);
    std::uint64_t expected_offset = kHeaderSize;
    for (const auto& c : module->container.chunks) {
      EXPECT_EQ(c.offset, expected_offset);
      EXPECT_GE(c.size, kChunkHeaderSize);
      EXPECT_TRUE(is_known_chunk(c.id)) << chunk_name(c.id);
      expected_offset += c.size;
    }
    EXPECT_EQ(expected_offset, file.size());

    // Decodes that list the chunk table must agree entry by entry.
    if (!ref.chunks.empty()) {
      ++with_chunk_table;
      ASSERT_EQ(module->container.chunks.size(), ref.chunks.size());
      for (std::size_t i = 0; i < ref.chunks.size(); ++i) {
        EXPECT_EQ(chunk_name(module->container.chunks[i].id), ref.chunks[i].id);
        EXPECT_EQ(module->container.chunks[i].offset, ref.chunks[i].offset);
        EXPECT_EQ(module->container.chunks[i].size, ref.chunks[i].size);
      }
    }
    // The reference's pack payload offset is the PACK chunk's payload.
    if (ref.has("has_pack_chunk") && ref.number("has_pack_chunk") == 1) {
      bool found = false;
      for (const auto& c : module->container.chunks) {
        if (c.id != chunk::PACK) continue;
        found = true;
        EXPECT_EQ(c.payload_offset(), ref.number("pack_payload_offset"));
        EXPECT_EQ(c.payload_size(), ref.number("pack_payload_size"));
      }
      EXPECT_TRUE(found);
    }
  }
  EXPECT_EQ(with_chunk_table, 3);  // TD.v9-root, historic/TD.v8 and terrain.v9-root
}

TEST(Eu7bSamples, TdV6HasNineChunksInWriterOrder) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto file = read_file(test::samples_dir() / "maszyna/eu7/TD.v6.eu7");
  auto c = walk(file);
  ASSERT_TRUE(c.ok()) << c.error().describe();
  std::vector<std::string> ids;
  for (const auto& ch : c->chunks) ids.push_back(chunk_name(ch.id));
  EXPECT_EQ(ids, (std::vector<std::string>{"STRS", "INCL", "TRAK", "MESH", "TRAC", "DYNM", "TRSE", "EVNT", "FINT"}));
  EXPECT_EQ(c->chunks[0].offset, 8u);
  EXPECT_EQ(c->chunks[0].size, 3404u);
  EXPECT_EQ(c->chunks[1].offset, 3412u);
}

TEST(Eu7bSamples, CrossCheckStringBytes) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto file = read_file(test::samples_dir() / "maszyna/eu7/TD.v6.eu7");
  auto m = module_of(file);
  ASSERT_TRUE(m.ok());
  // First string per the hex dump: length 14, "ZwrP34R300.inc".
  EXPECT_EQ(m->strings[0], "ZwrP34R300.inc");
  EXPECT_EQ(m->strings[1], "ZwrP34R300.eu7");
  EXPECT_EQ(m->strings[2], "zwr02");
}

TEST(Eu7bSamples, ContainerAndStringsRewriteByteIdentically) {
  SCENERIA_REQUIRE_SAMPLES();
  for (const auto& path : eu7_samples()) {
    SCOPED_TRACE(path.string());
    const auto file = read_file(path);
    auto c = walk(file);
    ASSERT_TRUE(c.ok());
    std::vector<RawChunk> raw;
    for (const auto& ch : c->chunks) {
      RawChunk r{ch.id, {file.begin() + static_cast<std::ptrdiff_t>(ch.payload_offset()),
                         file.begin() + static_cast<std::ptrdiff_t>(ch.offset + ch.size)}};
      if (ch.id == chunk::STRS) {
        auto strings = read_strings(r.payload, ch.payload_offset());
        ASSERT_TRUE(strings.ok());
        EXPECT_EQ(encode_strings(*strings), r.payload);
      }
      raw.push_back(std::move(r));
    }
    EXPECT_EQ(write_container(c->version, raw), file);
  }
}

// ---- a walk that stops after PACK (streaming), and the rest read later ----

// Read to PACK and then the rest is the module a whole read gives: the same chunks in the same
// order, the same problems and string reach, and it writes back the file's bytes.
TEST(Eu7bRest, AModuleReadToPackThenTheRestIsTheWholeModule) {
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> files;
  files.emplace_back("generated", write_module(*generate_module({.models = 5000, .seed = 3, .models_per_section = 250})).value());
  if (test::samples_available())
    for (const auto& path : eu7_samples()) files.emplace_back(path.filename().string(), read_file(path));
  std::size_t with_rest = 0;
  for (const auto& [name, file] : files) {
    SCOPED_TRACE(name);
    MemorySource whole_source(file, name);
    const auto whole = read_module(whole_source, {.load_pack = true});
    ASSERT_TRUE(whole.ok()) << whole.error().describe();
    MemorySource source(file, name);
    auto m = read_module(source, {.load_pack = true, .stop_after_pack = true});
    ASSERT_TRUE(m.ok()) << m.error().describe();
    if (const PackChunk* pack = m->pack()) {
      EXPECT_EQ(m->container.rest_offset, pack->payload_offset + pack->payload_size);
      with_rest += m->container.rest_offset < file.size();
    } else {
      EXPECT_EQ(m->container.rest_offset, file.size());  // no PACK: nothing to stop at
    }
    ASSERT_FALSE(read_rest(source, *m, {.load_pack = true}));
    EXPECT_EQ(m->container.rest_offset, file.size());
    ASSERT_EQ(m->chunks.size(), whole->chunks.size());
    for (std::size_t i = 0; i < m->chunks.size(); ++i) {
      EXPECT_EQ(m->chunks[i].id, whole->chunks[i].id) << i;
      EXPECT_EQ(m->chunks[i].offset, whole->chunks[i].offset) << i;
    }
    EXPECT_EQ(m->problems.size(), whole->problems.size());
    EXPECT_EQ(m->strings_referenced, whole->strings_referenced);
    auto written = write_module(*m);
    ASSERT_TRUE(written.ok()) << written.error().describe();
    EXPECT_EQ(*written, file);
    ASSERT_FALSE(read_rest(source, *m));  // nothing left: a second call changes nothing
    EXPECT_EQ(m->chunks.size(), whole->chunks.size());
  }
  EXPECT_GT(with_rest, 0u);
}

// A STRS, PIDX, PROT or PACK after PACK would change what the sections were read by: the rest is
// refused, said where, and the module is left as it was; a rest cut short is refused the same way.
TEST(Eu7bRest, ChunksTheSectionsWereReadByAreRefusedAfterPack) {
  const auto file = write_module(*generate_module({.models = 2000, .seed = 4})).value();
  for (const char* id : {"PIDX", "PROT", "PACK", "STRS"}) {
    SCOPED_TRACE(id);
    std::vector<std::uint8_t> bad = file;
    const std::uint64_t at = bad.size();
    bad.insert(bad.end(), id, id + 4);
    const auto size = u32le(8);
    bad.insert(bad.end(), size.begin(), size.end());
    MemorySource source(bad, "bad.eu7");
    auto m = read_module(source, {.stop_after_pack = true});
    ASSERT_TRUE(m.ok()) << m.error().describe();
    const std::size_t chunks = m->chunks.size(), problems = m->problems.size();
    const std::uint64_t rest = m->container.rest_offset;
    const Error e = read_rest(source, *m);
    ASSERT_TRUE(e);
    EXPECT_EQ(e.offset, at);
    EXPECT_EQ(e.message, fmt::format("chunk {} at {:#x} comes after PACK: a streamed module's sections were read by the "
                                     "ones before it, so open the file whole to see it as the reference reader does",
                                     id, at));
    EXPECT_EQ(m->chunks.size(), chunks);
    EXPECT_EQ(m->container.chunks.size(), chunks);
    EXPECT_EQ(m->problems.size(), problems);
    EXPECT_EQ(m->container.rest_offset, rest);
  }
  // A record list after PACK claiming more records than its payload holds: its own error, and
  // the module as it was.
  std::vector<std::uint8_t> cut = file;
  MemorySource walk_source(file, "g.eu7");
  const auto c = read_container(walk_source).value();
  const auto trac = std::find_if(c.chunks.begin(), c.chunks.end(), [](const ChunkInfo& i) { return i.id == chunk::TRAC; });
  ASSERT_NE(trac, c.chunks.end());
  const auto huge = u32le(0x7FFFFFFF);
  std::copy(huge.begin(), huge.end(), cut.begin() + static_cast<std::ptrdiff_t>(trac->payload_offset()));
  MemorySource source(cut, "cut.eu7");
  auto m = read_module(source, {.stop_after_pack = true});
  ASSERT_TRUE(m.ok()) << m.error().describe();
  const std::size_t chunks = m->chunks.size();
  const Error e = read_rest(source, *m);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code, Errc::bad_count) << e.describe();
  EXPECT_NE(e.message.find(fmt::format("chunk TRAC at {:#x}", trac->offset)), std::string::npos) << e.message;
  EXPECT_EQ(m->chunks.size(), chunks);
  EXPECT_EQ(m->container.chunks.size(), chunks);
  EXPECT_LT(m->container.rest_offset, cut.size());
}

// ---- crafted errors ----

TEST(Eu7bErrors, EmptyAndShortFiles) {
  auto empty = walk({});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, Errc::bad_magic);
  EXPECT_EQ(empty.error().offset, 0u);

  auto magic_only = walk(bytes("EU7B\x06"));
  ASSERT_FALSE(magic_only.ok());
  EXPECT_EQ(magic_only.error().code, Errc::truncated);
  EXPECT_NE(magic_only.error().message.find("has 5"), std::string::npos) << magic_only.error().message;
}

TEST(Eu7bErrors, BadMagicNamesTheBytes) {
  auto r = walk(concat({bytes("EU7C"), u32le(6)}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::bad_magic);
  EXPECT_EQ(r.error().offset, 0u);
  EXPECT_NE(r.error().message.find("45 55 37 43"), std::string::npos) << r.error().message;
}

TEST(Eu7bErrors, VersionsOutsideFourToNineAreRejected) {
  for (std::uint32_t v : {0u, 1u, 2u, 3u, 10u, 13u, 0xFFFFFFFFu}) {
    auto r = walk(concat({bytes("EU7B"), u32le(v)}));
    ASSERT_FALSE(r.ok()) << v;
    EXPECT_EQ(r.error().code, Errc::unsupported_version);
    EXPECT_EQ(r.error().offset, 4u);
    EXPECT_NE(r.error().message.find("version " + std::to_string(v)), std::string::npos);
    EXPECT_NE(r.error().message.find("4-9"), std::string::npos);
  }
  for (std::uint32_t v = 4; v <= 9; ++v) {
    auto r = walk(concat({bytes("EU7B"), u32le(v)}));
    ASSERT_TRUE(r.ok()) << v;
    EXPECT_EQ(r->version, v);
    EXPECT_TRUE(r->chunks.empty());
  }
}

TEST(Eu7bErrors, ChunkSizeBelowHeader) {
  auto r = walk(concat({bytes("EU7B"), u32le(6), bytes("STRS"), u32le(4), u32le(0)}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::bad_chunk_size);
  EXPECT_EQ(r.error().offset, 12u);  // the size field of the chunk at 8
  EXPECT_NE(r.error().message.find("chunk STRS at 0x8: size 4"), std::string::npos) << r.error().message;
}

TEST(Eu7bErrors, ChunkRunningPastTheEnd) {
  auto good = strs_module(u32le(0));
  auto bad = concat({good, bytes("TRAK"), u32le(100), u32le(1)});
  auto r = walk(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::truncated);
  EXPECT_EQ(r.error().offset, good.size());
  EXPECT_NE(r.error().message.find("claims 100 bytes but only 12 remain"), std::string::npos) << r.error().message;
}

TEST(Eu7bErrors, TruncatedChunkHeader) {
  auto good = strs_module(u32le(0));
  auto r = walk(concat({good, bytes("TRA")}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::truncated);
  EXPECT_EQ(r.error().offset, good.size());
  EXPECT_NE(r.error().message.find("only 3 remain"), std::string::npos);
}

TEST(Eu7bErrors, UnknownChunksAreListedAndSkipped) {
  const RawChunk chunks[] = {{chunk::STRS, u32le(0)},
                             {fourcc('X', 'Y', 'Z', 'W'), {1, 2, 3}},
                             {fourcc('\x01', 'A', 'B', 'C'), {}},
                             {chunk::FINT, u32le(7)}};
  auto r = walk(write_container(9, chunks));
  ASSERT_TRUE(r.ok()) << r.error().describe();
  ASSERT_EQ(r->chunks.size(), 4u);
  EXPECT_EQ(chunk_name(r->chunks[1].id), "XYZW");
  EXPECT_FALSE(is_known_chunk(r->chunks[1].id));
  EXPECT_EQ(r->chunks[1].size, 11u);
  EXPECT_EQ(chunk_name(r->chunks[2].id), "\\x01ABC");
  EXPECT_EQ(r->chunks[3].id, chunk::FINT);
  EXPECT_EQ(r->chunks[3].offset, 8u + 12u + 11u + 8u);
}

TEST(Eu7bErrors, StrsEndsBeforeItsLastString) {
  // Three strings promised (plausible for the byte count), two present.
  auto payload = concat({u32le(3), u32le(6), bytes("abcdef"), u32le(1), bytes("c")});
  auto m = module_of(strs_module(payload));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, Errc::truncated);
  EXPECT_EQ(m.error().offset, 16u + payload.size());  // where string 2's length would be
  EXPECT_NE(m.error().message.find("chunk STRS at 0x8"), std::string::npos) << m.error().message;
}

TEST(Eu7bErrors, StrsStringLongerThanPayload) {
  auto payload = concat({u32le(2), u32le(2), bytes("ab"), u32le(50), bytes("xyz")});
  auto m = module_of(strs_module(payload));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, Errc::truncated);
  EXPECT_EQ(m.error().offset, 16u + 10u);
  EXPECT_NE(m.error().message.find("string 1 at 0x1a claims 50 bytes but only 3 remain"), std::string::npos)
      << m.error().message;
}

TEST(Eu7bErrors, StrsHugeCountIsRejectedBeforeAllocating) {
  auto m = module_of(strs_module(concat({u32le(0xFFFFFFFFu), u32le(1), bytes("a")})));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, Errc::bad_count);
  EXPECT_NE(m.error().message.find("claims 4294967295 strings but only 5 bytes remain"), std::string::npos)
      << m.error().message;
}

TEST(Eu7bErrors, StrsPayloadTooShortForCount) {
  auto m = module_of(strs_module({1, 0}));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, Errc::truncated);
  EXPECT_EQ(m.error().offset, 16u);
}

// Every list caps its count by the bytes left over the smallest record; each kind's smallest
// (nothing optional present) must read back, however many there are. Unnamed traction wires are
// 99 bytes: a hand-counted minimum of 103 once refused 100 MB compiled sceneries.
TEST(Eu7bErrors, ListsOfTheSmallestRecordsReadBack) {
  Module m;
  m.container.version = 6;
  m.chunks.push_back(Chunk{chunk::STRS, 0, StringsChunk{0, 0}, {}, false});
  auto add = [&](std::uint32_t id, auto list) {
    list.records.resize(40);
    m.chunks.push_back(Chunk{id, 0, std::move(list), {}, false});
  };
  add(chunk::TRAK, RecordList<Track>{});
  add(chunk::MESH, RecordList<Shape>{});
  add(chunk::LINE, RecordList<Line>{});
  add(chunk::TRAC, RecordList<Traction>{});
  add(chunk::PWRS, RecordList<PowerSource>{});
  add(chunk::MEMC, RecordList<MemCell>{});
  add(chunk::LAUN, RecordList<EventLauncher>{});
  add(chunk::DYNM, RecordList<Dynamic>{});
  add(chunk::SOND, RecordList<Sound>{});
  const auto bytes = write_module(m).value();
  MemorySource source(bytes, "smallest.eu7");
  auto back = read_module(source);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  std::size_t lists = 0;
  for (const Chunk& c : back->chunks)
    std::visit([&](const auto& d) {
      if constexpr (requires { d.records.size(); }) {
        EXPECT_EQ(d.records.size(), 40u) << chunk_name(c.id);
        ++lists;
      }
    }, c.data);
  EXPECT_EQ(lists, 9u);
}

TEST(Eu7bStrings, KeepExactBytes) {
  StringTable t;
  t.push_back("plot_S\xb3up_A.t3d");  // CP1250 'ł', invalid as UTF-8
  t.push_back("");
  t.push_back(std::string_view("a\0b", 3));
  auto payload = encode_strings(t);
  auto back = read_strings(payload, 16);
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->size(), 3u);
  EXPECT_EQ((*back)[0], "plot_S\xb3up_A.t3d");
  EXPECT_EQ((*back)[1], "");
  EXPECT_EQ((*back)[2], std::string_view("a\0b", 3));
}

// ---- strings loaded later (streaming) ----

// Feeds a lazily read module's STRS in pieces of `piece` bytes, as a stream would fetch them.
Error feed_all(const std::vector<std::uint8_t>& file, Module& m, std::size_t piece) {
  StringFeed feed(m);
  while (!feed.done()) {
    const std::uint64_t at = feed.next_offset();
    const std::uint64_t end = std::min<std::uint64_t>(feed.end_offset(), at + piece);
    if (Error e = feed.feed(at, std::span(file).subspan(at, end - at), m)) return e;
  }
  return {};
}

TEST(Eu7bStringFeed, LazyReadThenFeedGivesTheSameStringsForEverySample) {
  SCENERIA_REQUIRE_SAMPLES();
  for (const auto& path : eu7_samples()) {
    SCOPED_TRACE(path.string());
    const auto file = read_file(path);
    MemorySource src(file, path.string());
    auto eager = read_module(src);
    ASSERT_TRUE(eager.ok());
    for (std::size_t piece : {1u, 3u, 7u, 4096u, 1u << 20}) {
      auto lazy = read_module(src, {.lazy_strings = true});
      ASSERT_TRUE(lazy.ok()) << lazy.error().describe();
      EXPECT_TRUE(lazy->strings.empty());
      EXPECT_EQ(lazy->string_count(), eager->strings.size());
      EXPECT_EQ(lazy->strings_referenced, eager->strings_referenced);
      EXPECT_LE(eager->strings_referenced, eager->strings.size());
      ASSERT_FALSE(feed_all(file, *lazy, piece));
      ASSERT_EQ(lazy->strings.size(), eager->strings.size()) << piece;
      for (std::size_t i = 0; i < eager->strings.size(); ++i) ASSERT_EQ(lazy->strings[i], eager->strings[i]) << i;
    }
  }
}

TEST(Eu7bStringFeed, ContinuesAcrossSeveralStrsChunksAndSkipsBytesAlreadyFed) {
  StringTable a, b;
  a.push_back("first");
  a.push_back("");
  b.push_back("second chunk");
  const RawChunk chunks[] = {{chunk::STRS, encode_strings(a)}, {chunk::TRAK, u32le(0)}, {chunk::STRS, encode_strings(b)}};
  const auto file = write_container(6, chunks);
  MemorySource src(file, "two.eu7");
  auto m = read_module(src, {.lazy_strings = true});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->string_count(), 3u);
  StringFeed feed(*m);
  // Everything from the first string to the end of the file in one piece, then again (ignored).
  const std::uint64_t at = feed.next_offset();
  ASSERT_FALSE(feed.feed(at, std::span(file).subspan(at), *m));
  EXPECT_TRUE(feed.done());
  ASSERT_EQ(m->strings.size(), 3u);
  EXPECT_EQ(m->strings[0], "first");
  EXPECT_EQ(m->strings[1], "");
  EXPECT_EQ(m->strings[2], "second chunk");
  EXPECT_FALSE(feed.feed(at, std::span(file).subspan(at), *m));
  EXPECT_EQ(m->strings.size(), 3u);
}

TEST(Eu7bStringFeed, ReportsWhereAStringRunsPastItsChunkAndRefusesGaps) {
  // Second string claims 50 bytes in a 16-byte payload.
  const auto file = strs_module(concat({u32le(2), u32le(1), bytes("a"), u32le(50), bytes("bcd")}));
  MemorySource src(file, "bad.eu7");
  auto m = read_module(src, {.lazy_strings = true});
  ASSERT_TRUE(m.ok());
  StringFeed gap(*m);
  Error e = gap.feed(gap.next_offset() + 2, std::span(file).subspan(static_cast<std::size_t>(gap.next_offset() + 2)), *m);
  ASSERT_TRUE(e);
  EXPECT_NE(e.message.find("gap"), std::string::npos) << e.message;
  e = feed_all(file, *m, 2);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code, Errc::truncated);
  EXPECT_EQ(e.offset, 8u + 8 + 4 + 5);  // header, chunk header, count, first string
  EXPECT_NE(e.message.find("string 1 at 0x19 claims 50 bytes but only 3 remain"), std::string::npos) << e.message;
  EXPECT_EQ(m->strings.size(), 1u);

  // A count the payload cannot hold is refused by the lazy read itself.
  auto huge = module_of_lazy(strs_module(concat({u32le(1000), u32le(0)})));
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().code, Errc::bad_count);
  // Fewer strings than declared: the feed says so when the payload ends.
  const auto short_file = strs_module(concat({u32le(3), u32le(6), bytes("abcdef"), u32le(0)}));
  MemorySource short_src(short_file, "short.eu7");
  auto s = read_module(short_src, {.lazy_strings = true});
  ASSERT_TRUE(s.ok());
  e = feed_all(short_file, *s, 64);
  ASSERT_TRUE(e);
  EXPECT_NE(e.message.find("declares 3 strings but its payload ends after 2"), std::string::npos) << e.message;
}

// Section spans come from the PIDX offsets sorted once; they tile the PACK payload in offset order
// whatever order PIDX lists the sections in.
TEST(Eu7bSections, SpansTileThePayloadForEverySection) {
  auto generated = generate_module({.models = 60000, .seed = 9});
  ASSERT_TRUE(generated.ok()) << generated.error().describe();
  MemorySource src(write_module(*generated).value(), "g.eu7");
  auto module = read_module(src, {.load_pack = true});
  ASSERT_TRUE(module.ok()) << module.error().describe();
  const Module& m = *module;
  ASSERT_NE(m.pidx(), nullptr);
  ASSERT_GT(m.pidx()->size(), 20u);
  const SectionSpans spans(m);
  std::vector<SectionSpan> all;
  for (const PidxEntry& e : *m.pidx()) {
    auto s = spans(e);
    ASSERT_TRUE(s.ok()) << s.error().describe();
    auto one = section_span(m, e);
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(one->begin, s->begin);
    EXPECT_EQ(one->end, s->end);
    all.push_back(*s);
  }
  std::sort(all.begin(), all.end(), [](const SectionSpan& a, const SectionSpan& b) { return a.begin < b.begin; });
  EXPECT_EQ(all.front().begin, 0u);
  for (std::size_t i = 1; i < all.size(); ++i) EXPECT_EQ(all[i].begin, all[i - 1].end);
  EXPECT_EQ(all.back().end, m.pack()->payload_size);
}

}  // namespace
}  // namespace sceneria::eu7b
