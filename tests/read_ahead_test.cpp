// Reading a big module's header through a read-ahead cache: a few ranged requests, a small part
// of the file, the same result as reading it whole.
#include <gtest/gtest.h>

#include "formats/eu7b/generator.hpp"
#include "formats/eu7b/pack.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/writer.hpp"
#include "io/read_ahead_source.hpp"

namespace sceneria {
namespace {

// Counts what the layer above asks of the "network".
class CountingSource final : public ByteSource {
 public:
  explicit CountingSource(std::span<const std::uint8_t> bytes) : inner_(bytes, "remote.eu7") {}
  std::uint64_t size() const override { return inner_.size(); }
  Error read(std::uint64_t offset, std::span<std::uint8_t> out) override {
    ++requests;
    bytes += out.size();
    return inner_.read(offset, out);
  }
  const std::string& name() const override { return inner_.name(); }
  std::uint64_t requests = 0, bytes = 0;

 private:
  MemorySource inner_;
};

TEST(ReadAhead, ServesReadsFromFetchedBlocks) {
  std::vector<std::uint8_t> data(1'000'000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 7);
  CountingSource remote(data);
  ReadAheadSource cache(remote, 64 * 1024);
  std::vector<std::uint8_t> out(8);
  ASSERT_FALSE(cache.read(100, out));
  EXPECT_EQ(out[0], static_cast<std::uint8_t>(100 * 7));
  ASSERT_FALSE(cache.read(5000, out));   // same block [100, 65636): no new request
  EXPECT_EQ(remote.requests, 1u);
  ASSERT_FALSE(cache.read(65630, out));  // crosses the block's end: one more request for the rest
  EXPECT_EQ(remote.requests, 2u);
  EXPECT_EQ(out[7], static_cast<std::uint8_t>(65637 * 7));
  std::vector<std::uint8_t> tail(10);
  ASSERT_FALSE(cache.read(data.size() - 10, tail));  // near the end: clamped to the file
  EXPECT_EQ(tail[9], static_cast<std::uint8_t>((data.size() - 1) * 7));
  EXPECT_TRUE(cache.read(data.size() - 5, tail));    // past the end is an error, not a fetch
  EXPECT_EQ(cache.requests(), 3u);
}

TEST(ReadAhead, HeaderPassOfA50MegabyteModuleFetchesEverythingButPack) {
  // 1.1 M models: about 50 MB, nearly all of it PACK.
  auto module = eu7b::generate_module({.models = 1'100'000, .seed = 5});
  ASSERT_TRUE(module.ok());
  const auto bytes = eu7b::write_module(*module).value();
  ASSERT_GT(bytes.size(), 50'000'000u);
  CountingSource remote(bytes);
  ReadAheadSource cache(remote);
  auto header = eu7b::read_module(cache);  // everything but PACK payloads
  ASSERT_TRUE(header.ok()) << header.error().describe();
  // What it fetched: the chunks other than PACK, plus at most a block at each PACK edge.
  const std::uint64_t non_pack = bytes.size() - header->pack()->payload_size;
  EXPECT_LE(remote.bytes, non_pack + 2 * 64 * 1024);
  EXPECT_LT(static_cast<double>(remote.bytes) / static_cast<double>(bytes.size()), 0.03);
  EXPECT_LT(remote.requests, 40u);
  // The same module as reading it whole, PACK aside.
  MemorySource whole(bytes, "whole.eu7");
  auto full = eu7b::read_module(whole);
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(header->strings.size(), full->strings.size());
  EXPECT_EQ(header->pidx()->size(), full->pidx()->size());
  EXPECT_EQ(header->prototypes()->prototypes.size(), full->prototypes()->prototypes.size());
  // Then one section, from exactly its own bytes.
  const eu7b::PidxEntry& e = header->pidx()->at(header->pidx()->size() / 2);
  auto span = eu7b::section_span(*header, e);
  ASSERT_TRUE(span.ok());
  const std::uint64_t before = remote.bytes;
  auto section_bytes = cache.read_vector(header->pack()->payload_offset + span->begin, span->end - span->begin);
  ASSERT_TRUE(section_bytes.ok());
  auto section = eu7b::decode_section(*section_bytes, header->pack()->payload_offset + span->begin,
                                      eu7b::section_context(*header, e));
  ASSERT_TRUE(section.ok()) << section.error().describe();
  EXPECT_EQ(section->model_count(), e.model_count);
  EXPECT_LE(remote.bytes - before, span->end - span->begin + 64 * 1024);
}

}  // namespace
}  // namespace sceneria
