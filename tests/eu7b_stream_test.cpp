// Opening a module from fetched ranges and streaming its sections into a scene, as the browser
// worker does, with a counting "server" in place of HTTP.
#include <gtest/gtest.h>

#include <set>

#include "formats/eu7b/generator.hpp"
#include "formats/eu7b/writer.hpp"
#include "scene/serialize.hpp"
#include "stream/eu7b_stream.hpp"

namespace sceneria::stream {
namespace {

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
  Eu7bStream stream(file.size(), "remote.eu7");
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
  Eu7bStream stream(file.size(), "remote.eu7");
  stream.add_bytes(0, file);  // everything at once
  ASSERT_TRUE(stream.open().ok());
  ASSERT_TRUE(stream.opened());
  std::vector<SectionId> cancel;
  const auto requests = stream.update(stream.start_position(), cancel);
  ASSERT_GE(requests.size(), 2u);
  std::vector<std::uint8_t> garbage(requests[0].end - requests[0].begin, 0xEE);
  EXPECT_TRUE(stream.section_bytes(requests[0].id, garbage));  // decodes to an error
  EXPECT_TRUE(stream.section_bytes(requests[1].id, std::vector<std::uint8_t>(3)));  // wrong length
  for (std::size_t i = 2; i < requests.size(); ++i)
    EXPECT_FALSE(stream.section_bytes(requests[i].id, std::span(file).subspan(requests[i].begin, requests[i].end - requests[i].begin)));
  EXPECT_EQ(stream.streamer().state(requests[0].id), State::idle);
  int applied = 0;
  while (stream.apply_one(stream.start_position())) ++applied;
  EXPECT_EQ(applied, static_cast<int>(requests.size()) - 2);
}

}  // namespace
}  // namespace sceneria::stream
