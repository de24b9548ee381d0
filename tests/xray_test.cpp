// X-Ray `.object`: every sample's chunks and what they say against the values in notes
// xray-object.md §8 (decoded from the files by hand and by blender-xray), LZHUF both ways, and
// every file written back byte for byte.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>

#include "formats/xray/document.hpp"
#include "formats/xray/envelope.hpp"
#include "formats/xray/lzhuf.hpp"
#include "formats/xray/xray.hpp"
#include "io/assets.hpp"
#include "io/byte_source.hpp"
#include "registry/registry.hpp"
#include "sample_files.hpp"
#include "scene/serialize.hpp"

namespace sceneria::xray {
namespace {

std::filesystem::path sample(const char* name) { return test::samples_dir() / "xray" / name; }

File read(const char* name) {
  const auto bytes = test::read_file(sample(name));
  auto f = read_object(bytes);
  EXPECT_TRUE(f.ok()) << name << ": " << f.error().describe();
  return f.ok() ? std::move(f).value() : File{};
}

TEST(XrayObject, EverySampleWritesBackByteForByte) {
  SCENERIA_REQUIRE_SAMPLES();
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(test::samples_dir() / "xray")) {
    if (e.path().extension() != ".object") continue;
    SCOPED_TRACE(e.path().filename().string());
    const auto bytes = test::read_file(e.path());
    auto f = read_object(bytes);
    ASSERT_TRUE(f.ok()) << f.error().describe();
    EXPECT_EQ(f->object.version, 16);
    EXPECT_TRUE(write_object(*f) == bytes);
    ++files;
  }
  EXPECT_EQ(files, 12u);
}

TEST(XrayObject, TheMinimalFileHoldsItsPlaneAndItsPolymap) {
  SCENERIA_REQUIRE_SAMPLES();
  const File f = read("test_fmt.object");
  const Object& o = f.object;
  EXPECT_EQ(o.surface_chunk, 0x0907);
  ASSERT_EQ(o.surfaces.size(), 1u);
  EXPECT_EQ(o.surfaces[0].name, "plmat");
  EXPECT_EQ(o.surfaces[0].shader, "models\\model");
  EXPECT_EQ(o.surfaces[0].texture, "eye");
  EXPECT_EQ(o.surfaces[0].vmap, "uvm");
  EXPECT_EQ(o.surfaces[0].fvf, 0x112u);
  ASSERT_EQ(o.meshes.size(), 1u);
  const Mesh& m = o.meshes[0];
  EXPECT_EQ(m.version, 17);
  EXPECT_EQ(m.name, "plobj");
  ASSERT_EQ(m.points.size(), 4u);
  for (const auto& p : m.points) {
    EXPECT_EQ(p[1], 0.0f);  // the plane y = 0, corners at ±1
    EXPECT_EQ(std::abs(p[0]), 1.0f);
    EXPECT_EQ(std::abs(p[2]), 1.0f);
  }
  ASSERT_EQ(m.faces.size(), 2u);
  EXPECT_EQ(m.faces[0].point, (std::array<std::uint32_t, 3>{1, 0, 2}));
  EXPECT_EQ(m.faces[0].vmref, (std::array<std::uint32_t, 3>{0, 1, 2}));
  EXPECT_EQ(m.vmref_count(), 6u);
  EXPECT_EQ(m.vmref_pairs.size(), 6u);  // one pair each
  EXPECT_EQ(m.vmap_chunk, 0x1012);
  ASSERT_EQ(m.vmaps.size(), 1u);
  EXPECT_EQ(m.vmaps[0].name, "uvm");
  EXPECT_TRUE(m.vmaps[0].polymap);
  EXPECT_EQ(m.vmaps[0].size(), 6u);
  EXPECT_EQ(m.vmaps[0].faces.size(), 6u);
  EXPECT_EQ(m.smoothing, (std::vector<std::uint32_t>{0, 0}));
  ASSERT_EQ(m.surfaces.size(), 1u);
  EXPECT_EQ(m.surfaces[0].surface, "plmat");
  EXPECT_EQ(m.surfaces[0].faces.size(), 2u);
  EXPECT_FALSE(o.creator.empty());  // DESC
  EXPECT_TRUE(f.warnings.empty());
}

TEST(XrayObject, TheCompressedOldFileUnpacksToItsOldChunks) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto bytes = test::read_file(sample("test_fmt_old.object"));
  std::uint32_t id = 0;
  std::memcpy(&id, bytes.data(), 4);
  EXPECT_EQ(id, 0x80007777u);
  const File f = read("test_fmt_old.object");
  ASSERT_EQ(f.root.chunks.size(), 1u);
  const Chunk& root = f.root.chunks[0];
  EXPECT_TRUE(root.packed);
  EXPECT_EQ(root.stream.size(), 774u);
  EXPECT_EQ(root.data.size(), 1645u);
  // The unpacked payload is chunks end to end: its first is the version (16), and they fill it.
  auto inner = read_chunks(root.data, root.offset + 8, "chunk 0x7777");
  ASSERT_TRUE(inner.ok());
  EXPECT_TRUE(inner->trailing.empty());
  EXPECT_EQ(inner->chunks.front().id, 0x0900u);
  EXPECT_EQ(inner->chunks.front().data, (std::vector<std::uint8_t>{16, 0}));
  for (std::uint32_t old : {0x0911u, 0x0912u, 0x0913u, 0x0914u, 0x0916u, 0x0918u}) EXPECT_NE(inner->find(old), nullptr) << std::hex << old;
  const Object& o = f.object;
  EXPECT_EQ(o.surface_chunk, 0x0905);
  ASSERT_EQ(o.surfaces.size(), 1u);
  EXPECT_EQ(o.surfaces[0].texture, "det\\det_leaves");
  EXPECT_EQ(o.surfaces[0].vmap, "det\\det_leaves");
  EXPECT_EQ(o.surfaces[0].compiler_shader, "default");  // from 0x0918
  EXPECT_EQ(o.bone_chunk, 0x0913);
  EXPECT_TRUE(o.bones.empty());
  ASSERT_EQ(o.meshes.size(), 1u);
  const Mesh& m = o.meshes[0];
  EXPECT_EQ(m.points.size(), 13u);
  EXPECT_EQ(m.adjacency_bytes, 353u - 4 - 13 * 12);  // the old adjacency tail
  EXPECT_EQ(m.faces.size(), 15u);
  EXPECT_EQ(m.vmref_count(), 45u);
  EXPECT_EQ(m.vmap_chunk, 0x1011);
  ASSERT_EQ(m.vmaps.size(), 1u);
  EXPECT_EQ(m.vmaps[0].name, "");
  EXPECT_EQ(m.vmaps[0].size(), 13u);
  EXPECT_TRUE(m.vmaps[0].points.empty());  // VMAPS_1 has no index arrays
  // Packed again, it unpacks to the same bytes; the file is written back with its own stream.
  const auto again = lzhuf_encode(root.data);
  auto back = lzhuf_decode(again, root.data.size());
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(*back == root.data);
  File edited = f;
  edited.root.chunks[0].stream.clear();  // as if changed: packed anew
  const auto rewritten = write_object(edited);
  EXPECT_NE(rewritten, bytes);
  auto reread = read_object(rewritten);
  ASSERT_TRUE(reread.ok()) << reread.error().describe();
  EXPECT_TRUE(reread->root.chunks[0].packed);
  EXPECT_TRUE(reread->root.chunks[0].data == root.data);
}

TEST(XrayObject, BonesWeightsAndTwoMapsOfOneName) {
  SCENERIA_REQUIRE_SAMPLES();
  const File bones = read("test_fmt_bones.object");
  EXPECT_EQ(bones.object.flags, 1u);  // dynamic
  ASSERT_EQ(bones.object.bones.size(), 2u);
  EXPECT_EQ(bones.object.bones[0].name, "bone_root");
  EXPECT_EQ(bones.object.bones[1].parent, "bone_root");
  EXPECT_EQ(bones.object.bones[1].weight_map, "bone_child");
  EXPECT_EQ(bones.object.bones[0].length, 0.5f);
  EXPECT_EQ(bones.object.bone_parts.size(), 2u);
  const Mesh& m = bones.object.meshes.at(0);
  EXPECT_EQ(m.vmref_pairs.size(), 12u);  // UV and weight for each of 6 refs
  ASSERT_EQ(m.vmaps.size(), 3u);
  EXPECT_EQ(m.vmaps[1].name, "bone_root");
  EXPECT_EQ(m.vmaps[1].type, 1);
  EXPECT_EQ(m.vmaps[1].size(), 3u);
  EXPECT_EQ(m.vmaps[2].size(), 1u);

  const File refs = read("test_fmt_vmrefs.object");
  const Mesh& r = refs.object.meshes.at(0);
  ASSERT_EQ(r.vmaps.size(), 4u);
  EXPECT_EQ(r.vmaps[0].name, "Texture");
  EXPECT_FALSE(r.vmaps[0].polymap);
  EXPECT_EQ(r.vmaps[0].size(), 4u);
  EXPECT_EQ(r.vmaps[3].name, "Texture");
  EXPECT_TRUE(r.vmaps[3].polymap);
  EXPECT_EQ(r.vmaps[3].size(), 2u);
  EXPECT_EQ(refs.object.surfaces.at(0).texture, "item\\sigaret");
  EXPECT_EQ(refs.object.surfaces.at(0).vmap, "");
  EXPECT_TRUE(refs.object.actor_transform.has_value());
  EXPECT_EQ(refs.object.bones.size(), 2u);
  EXPECT_EQ(refs.object.user_data, "");
  EXPECT_EQ(refs.object.lod_ref, "");
}

TEST(XrayObject, WhatTheOtherSamplesHold) {
  SCENERIA_REQUIRE_SAMPLES();
  const File broken = read("test_fmt_broken.object");
  EXPECT_TRUE(broken.object.meshes.empty());
  EXPECT_TRUE(broken.object.surfaces.empty());
  EXPECT_EQ(broken.object.bones.size(), 1u);
  EXPECT_TRUE(broken.object.motions.empty());

  const File invalid = read("test_fmt_invalid_face.object");
  ASSERT_EQ(invalid.warnings.size(), 1u);
  EXPECT_NE(invalid.warnings[0].message.find("1 degenerate face"), std::string::npos);
  EXPECT_EQ(invalid.object.meshes.at(0).vmaps.at(0).name, "UVMap");

  EXPECT_EQ(read("test_fmt_no_texture.object").object.surfaces.at(0).texture, "");
  EXPECT_EQ(read("test_fmt_texture_caps.object").object.surfaces.at(0).texture, "CAPS");
  EXPECT_EQ(read("test_fmt_sg_new.object").object.meshes.at(0).smoothing, (std::vector<std::uint32_t>{6, 7, 3, 0xFFFFFFFFu}));
  EXPECT_EQ(read("test_level_1.object").object.surfaces.at(0).texture, "$shadertest");
  const File level_2 = read("test_level_2.object");
  const Mesh& circle = level_2.object.meshes.at(0);
  EXPECT_EQ(circle.points.size(), 9u);
  EXPECT_EQ(circle.faces.size(), 8u);
  EXPECT_EQ(circle.vmref_count(), 24u);
  const File two = read("test_level_4.object");
  ASSERT_EQ(two.object.meshes.size(), 2u);
  EXPECT_EQ(two.object.meshes[0].name, "Plane");
  EXPECT_EQ(two.object.meshes[1].name, "Plane.001");
}

TEST(XrayLzhuf, RoundTripsWhateverItIsGiven) {
  std::mt19937 rng(7);
  for (std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{59}, std::size_t{60}, std::size_t{61}, std::size_t{5000}, std::size_t{200000}}) {
    std::vector<std::uint8_t> text(size);
    // Runs, repeats at every distance and noise: matches of every length, the ring wrapping, and
    // enough symbols to make the tree rebuild (at a root count of 0x4000).
    for (std::size_t k = 0; k < size; ++k)
      text[k] = k % 3000 < 1000 ? static_cast<std::uint8_t>(rng() % 4) : k % 3000 < 2000 ? static_cast<std::uint8_t>(k % 251) : static_cast<std::uint8_t>(rng());
    const auto packed = lzhuf_encode(text);
    auto back = lzhuf_decode(packed, size);
    ASSERT_TRUE(back.ok()) << size << ": " << back.error().describe();
    EXPECT_TRUE(*back == text) << size;
    if (size == 200000) EXPECT_LT(packed.size(), size * 3 / 4);
  }
}

TEST(XrayLzhuf, AStreamThatEndsEarlyOrClaimsTooMuchIsRefused) {
  std::vector<std::uint8_t> text(4000);
  for (std::size_t k = 0; k < text.size(); ++k) text[k] = static_cast<std::uint8_t>(k * 7);
  const auto packed = lzhuf_encode(text);
  auto cut = lzhuf_decode(std::span(packed).first(packed.size() / 2), text.size(), 0x40);
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().code, Errc::truncated);
  EXPECT_NE(cut.error().message.find("LZHUF stream at 0x40"), std::string::npos) << cut.error().message;
  auto huge = lzhuf_decode(packed, std::uint64_t{1} << 40, 0x40);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().code, Errc::bad_count);
}

TEST(XrayObject, BrokenFilesAreRefusedWithTheChunkAndWhere) {
  SCENERIA_REQUIRE_SAMPLES();
  auto bytes = test::read_file(sample("test_fmt.object"));
  // Cut anywhere: an error or a read, never a crash.
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    auto f = read_object(std::span(bytes).first(n));
    if (!f) EXPECT_FALSE(f.error().message.empty());
  }
  auto big = bytes;
  const std::uint32_t huge = 0x7FFFFFF0;
  std::memcpy(big.data() + 4, &huge, 4);
  auto f = read_object(big);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("chunk 0x7777 at 0x0 claims 2147483632 bytes"), std::string::npos) << f.error().message;
  // A mesh's version chunk emptied (the sizes of the chunks around it lowered to match): the
  // message names the mesh and the chunk, a context written only for the message.
  const auto size_at = [&](std::size_t at) {
    std::uint32_t v = 0;
    std::memcpy(&v, bytes.data() + at + 4, 4);
    return std::size_t{v};
  };
  const auto find = [&](std::size_t begin, std::size_t end, std::uint32_t id) {
    for (std::size_t at = begin; at + 8 <= end; at += 8 + size_at(at)) {
      std::uint32_t got = 0;
      std::memcpy(&got, bytes.data() + at, 4);
      if (got == id) return at;
    }
    ADD_FAILURE() << "no chunk " << id;
    return end;
  };
  const std::size_t meshes = find(8, 8 + size_at(0), 0x0910), mesh = meshes + 8;
  const std::size_t version = find(mesh + 8, mesh + 8 + size_at(mesh), 0x1000);
  ASSERT_EQ(size_at(version), 2u);
  auto cut = bytes;
  cut.erase(cut.begin() + static_cast<std::ptrdiff_t>(version + 8), cut.begin() + static_cast<std::ptrdiff_t>(version + 10));
  for (const std::size_t at : {std::size_t{0}, meshes, mesh, version}) {
    const std::uint32_t smaller = static_cast<std::uint32_t>(size_at(at) - 2);
    std::memcpy(cut.data() + at + 4, &smaller, 4);
  }
  auto g = read_object(cut);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().code, Errc::truncated);
  EXPECT_EQ(g.error().message, fmt::format("mesh 0 at {:#x}: chunk 0x1000 at {:#x}: needs 2 bytes at {:#x} but only 0 remain", mesh, version, version + 8));
  auto none = read_object(std::vector<std::uint8_t>(16, 0));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, Errc::bad_magic);
}

scene::Scene scene_of(const char* name, AssetResolver* assets = nullptr) {
  const auto bytes = test::read_file(sample(name));
  MemorySource source(bytes, name);
  auto doc = open_document(source, {.assets = assets});
  EXPECT_TRUE(doc.ok()) << doc.error().describe();
  auto s = (*doc)->scene();
  EXPECT_TRUE(s.ok());
  return std::move(s).value();
}

TEST(XrayScene, ThePlaneFacesUpWithItsUvsAndZTurned) {
  SCENERIA_REQUIRE_SAMPLES();
  const File f = read("test_fmt.object");
  const scene::Scene s = scene_of("test_fmt.object");
  ASSERT_EQ(s.meshes.size(), 1u);
  const scene::Mesh& m = s.meshes[0];
  EXPECT_EQ(m.name, "plobj");
  EXPECT_EQ(m.indices.size(), 6u);  // two triangles
  // Each face wound counter-clockwise seen from +Y (notes §6: the first face faces up).
  for (std::size_t k = 0; k < m.indices.size(); k += 3) {
    const glm::vec3 n = glm::cross(m.positions[m.indices[k + 1]] - m.positions[m.indices[k]], m.positions[m.indices[k + 2]] - m.positions[m.indices[k]]);
    EXPECT_GT(n.y, 0.0f);
  }
  for (const glm::vec3& n : m.normals) EXPECT_EQ(n, glm::vec3(0, 1, 0));
  // The first corner drawn: point 1 of face 0, (x, y, -z), with its vmref's UV from the polymap.
  const Mesh& x = f.object.meshes[0];
  const auto& p = x.points[x.faces[0].point[0]];
  EXPECT_EQ(m.positions[m.indices[0]], glm::vec3(p[0], p[1], -p[2]));
  const auto [vmap, index] = x.vmref_pairs[x.vmref_start[x.faces[0].vmref[0]]];
  EXPECT_EQ(m.uvs[m.indices[0]], glm::vec2(x.vmaps[vmap].data[index * 2], x.vmaps[vmap].data[index * 2 + 1]));
  // One part, the surface's material.
  ASSERT_EQ(m.parts.size(), 1u);
  EXPECT_EQ(s.materials[m.parts[0].material].name, "plmat");
  ASSERT_EQ(s.objects.size(), 1u);
  EXPECT_EQ(s.kinds[s.objects[0].kind], "meshes");
}

TEST(XrayScene, SmoothingGroupsSplitNormalsWhereEdgesAreHard) {
  SCENERIA_REQUIRE_SAMPLES();
  // test_fmt_sg_new: a tetrahedron with groups 6, 7, 3 and 0xFFFFFFFF (CoP's bits, by the
  // heuristic): the all-sharp face is flat; no face is smooth with every neighbour.
  const File f = read("test_fmt_sg_new.object");
  EXPECT_FALSE(looks_like_soc(f.object.meshes[0]));
  const scene::Scene s = scene_of("test_fmt_sg_new.object");
  const scene::Mesh& m = s.meshes.at(0);
  ASSERT_EQ(m.indices.size(), 12u);
  std::size_t flat_faces = 0;
  for (std::size_t k = 0; k < 12; k += 3) {
    const glm::vec3 face = glm::normalize(glm::cross(m.positions[m.indices[k + 1]] - m.positions[m.indices[k]], m.positions[m.indices[k + 2]] - m.positions[m.indices[k]]));
    bool flat = true;
    for (int c = 0; c < 3; ++c) flat = flat && glm::length(m.normals[m.indices[k + static_cast<std::size_t>(c)]] - face) < 1e-5f;
    flat_faces += flat;
    // Smooth or not, a corner's normal leans the face's way.
    for (int c = 0; c < 3; ++c) EXPECT_GT(glm::dot(m.normals[m.indices[k + static_cast<std::size_t>(c)]], face), 0.0f);
  }
  EXPECT_GE(flat_faces, 1u);
  EXPECT_LT(flat_faces, 4u);
  // Read as SoC instead (equal groups smooth): all four groups differ, so every face is flat.
  // (As the page asks for it: through the open options.)
  const auto bytes = test::read_file(sample("test_fmt_sg_new.object"));
  MemorySource source(bytes, "test_fmt_sg_new.object");
  auto doc = open_document(source, {.params = {{"smoothing", "soc"}}});
  ASSERT_TRUE(doc.ok()) << doc.error().describe();
  EXPECT_EQ((*doc)->summary(0)["smoothing"], "soc");
  EXPECT_EQ((*doc)->summary(0)["smoothing_detected"], "cop");
  // The choice a host renders: automatic says what it reads the groups as.
  EXPECT_EQ(describe(**doc)["choices"], nlohmann::ordered_json::parse(R"j([{"param":"smoothing","label":"Smoothing groups",
    "help":"X-Ray smoothing groups: SoC files smooth the edges between faces of equal groups; CoP files mark each face's hard edges in bits",
    "toggle":false,"values":[{"value":"automatic","label":"automatic (CoP)"},{"value":"soc","label":"SoC: equal groups are smooth"},
    {"value":"cop","label":"CoP: hard-edge bits"}],"value":"soc"}])j"));
  // A value outside the declared list, or a choice the format does not have, is refused.
  auto bad = open_document(source, {.params = {{"smoothing", "soft"}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, Errc::bad_value);
  EXPECT_EQ(bad.error().message, "smoothing: 'soft' is not one of 'automatic', 'soc', 'cop'");
  EXPECT_EQ(bad.error().file, "test_fmt_sg_new.object");
  auto unknown = open_document(source, {.params = {{"group", "1"}}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "X-Ray SDK object (.object) has no open choice 'group' (it has smoothing)");
  const auto soc = (*doc)->scene();
  ASSERT_TRUE(soc.ok());
  const scene::Mesh& sm = soc->meshes.at(0);
  for (std::size_t k = 0; k < 12; k += 3) {
    const glm::vec3 face = glm::normalize(glm::cross(sm.positions[sm.indices[k + 1]] - sm.positions[sm.indices[k]], sm.positions[sm.indices[k + 2]] - sm.positions[sm.indices[k]]));
    for (int c = 0; c < 3; ++c) EXPECT_LT(glm::length(sm.normals[sm.indices[k + static_cast<std::size_t>(c)]] - face), 1e-5f);
  }
}

TEST(XrayScene, ADegenerateFaceIsNotDrawnAndTwoMeshesAreTwoObjects) {
  SCENERIA_REQUIRE_SAMPLES();
  EXPECT_EQ(scene_of("test_fmt_invalid_face.object").meshes.at(0).indices.size(), 3u);
  const scene::Scene two = scene_of("test_level_4.object");
  ASSERT_EQ(two.meshes.size(), 2u);
  EXPECT_EQ(two.objects.size(), 2u);
  EXPECT_EQ(two.objects[1].index, 1u);
  EXPECT_TRUE(scene_of("test_fmt_broken.object").meshes.empty());
}

// format_xray_fuzzer: a UV map (type 0) of one value per entry was read as two, past its data;
// a vmref index of 0xFFFFFFFF wrapped the range check.
TEST(XrayScene, VmrefsIntoMapsThatCannotHoldThemGiveNoUv) {
  File f;
  Mesh m;
  m.points = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}};
  m.faces = {{{0, 1, 2}, {0, 1, 0xFFFFFFFFu}}};
  VMap narrow;
  narrow.dim = 1, narrow.type = 0, narrow.data = {0.5f, 0.25f};
  m.vmaps = {narrow};
  m.vmref_start = {0, 1, 2};
  m.vmref_pairs = {{0, 1}, {0, 0}};
  f.object.meshes = {m};
  XrayDocument doc(std::move(f), 0, "fuzz.object");
  auto s = doc.scene();
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->meshes.size(), 1u);
  for (const glm::vec2& uv : s->meshes[0].uvs) EXPECT_EQ(uv, glm::vec2(0));
}

TEST(XrayScene, SurfaceTexturesComeFromGamedataTexturesInAnyCase) {
  SCENERIA_REQUIRE_SAMPLES();
  // A 4x4 DXT1 texture, found for "CAPS" as gamedata/textures/caps.dds.
  std::vector<std::uint8_t> dds(136, 0);
  std::memcpy(dds.data(), "DDS ", 4);
  const std::uint32_t header[] = {124, 0x1007, 4, 4};
  std::memcpy(dds.data() + 4, header, sizeof header);
  const std::uint32_t pf[] = {32, 4};
  std::memcpy(dds.data() + 76, pf, sizeof pf);
  std::memcpy(dds.data() + 84, "DXT1", 4);
  const std::uint32_t caps = 0x1000;
  std::memcpy(dds.data() + 108, &caps, 4);
  MemoryAssets assets;
  assets.add("gamedata/textures/caps.dds", dds);
  const scene::Scene s = scene_of("test_fmt_texture_caps.object", &assets);
  ASSERT_EQ(s.textures.size(), 1u);
  EXPECT_EQ(s.textures[0].width, 4u);
  EXPECT_EQ(s.materials.at(s.meshes.at(0).parts.at(0).material).texture, 0u);
  // Without it, the texture is listed as missing.
  MemoryAssets none;
  const auto bytes = test::read_file(sample("test_fmt_texture_caps.object"));
  MemorySource source(bytes, "caps.object");
  auto doc = open_document(source, {.assets = &none});
  ASSERT_TRUE(doc.ok());
  const auto missing = (*doc)->missing_assets();
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0], "CAPS.dds");
}

// ---- skeleton, skin and motions ----

// test_fmt_bones.object with one v6 motion appended to its object chunk: `walk`, frames 0-2 at
// 30 fps, moving bone_child along x from 0 to 1 (linear keys at 0 and 2/30 s) and turning it a
// quarter about y (one step key), every other channel one key at the rest pose's value.
std::vector<std::uint8_t> with_motion(std::vector<std::uint8_t> file, const Bone& child) {
  std::vector<std::uint8_t> m;
  const auto put = [&](const void* p, std::size_t n) { m.insert(m.end(), static_cast<const std::uint8_t*>(p), static_cast<const std::uint8_t*>(p) + n); };
  const auto u8 = [&](std::uint8_t v) { put(&v, 1); };
  const auto u16 = [&](std::uint16_t v) { put(&v, 2); };
  const auto u32 = [&](std::uint32_t v) { put(&v, 4); };
  const auto f32 = [&](float v) { put(&v, 4); };
  const auto text = [&](const char* t) { put(t, std::strlen(t) + 1); };
  u32(1);  // motions
  text("walk"), u32(0), u32(2), f32(30.0f), u16(6);
  u8(0), u16(0xFFFF), f32(1), f32(2), f32(2), f32(1);  // flags, bone part, speed, accrue, falloff, power
  u16(1), text("bone_child"), u8(0);
  const auto key = [&](float value, float time, std::uint8_t shape) {
    f32(value), f32(time), u8(shape);
    if (shape != 4)
      for (int i = 0; i < 7; ++i) u16(32768);  // quantised 0 (unused by linear keys)
  };
  const float rest[6] = {0, child.offset[1], child.offset[2], 0, 0, 0};
  for (int c = 0; c < 6; ++c) {
    u8(1), u8(1);  // constant before and after
    if (c == 0) {
      u16(2), key(0.0f, 0.0f, 3), key(1.0f, 2.0f / 30.0f, 3);
    } else if (c == 3) {
      u16(1), key(1.5707964f, 0.0f, 4);
    } else {
      u16(1), key(rest[c], 0.0f, 4);
    }
  }
  std::vector<std::uint8_t> chunk(8);
  const std::uint32_t id = 0x0916, size = static_cast<std::uint32_t>(m.size());
  std::memcpy(chunk.data(), &id, 4), std::memcpy(chunk.data() + 4, &size, 4);
  chunk.insert(chunk.end(), m.begin(), m.end());
  file.insert(file.end(), chunk.begin(), chunk.end());
  std::uint32_t root = 0;
  std::memcpy(&root, file.data() + 4, 4);
  root += static_cast<std::uint32_t>(chunk.size());
  std::memcpy(file.data() + 4, &root, 4);
  return file;
}

int node_named(const scene::Scene& s, std::string_view name) {
  for (std::size_t k = 0; k < s.nodes.size(); ++k)
    if (s.nodes[k].name == name) return static_cast<int>(k);
  return -1;
}

glm::vec3 world_of(const scene::Scene& s, int k) {
  glm::mat4 m(1);
  for (; k >= 0; k = s.nodes[static_cast<std::size_t>(k)].parent) {
    const scene::Node& n = s.nodes[static_cast<std::size_t>(k)];
    m = glm::translate(glm::mat4(1), n.translation) * glm::mat4_cast(n.rotation) * m;
  }
  return glm::vec3(m[3]);
}

TEST(XraySkin, TheBonesAreJointsAtTheirRestPosesReflectedLikeTheMesh) {
  SCENERIA_REQUIRE_SAMPLES();
  const scene::Scene s = scene_of("test_fmt_bones.object");
  const int root = node_named(s, "bone_root"), child = node_named(s, "bone_child");
  ASSERT_GE(root, 0);
  ASSERT_GE(child, 0);
  EXPECT_EQ(s.nodes[static_cast<std::size_t>(root)].parent, -1);
  EXPECT_EQ(s.nodes[static_cast<std::size_t>(child)].parent, root);
  // Offsets (0, 0.5007, 0) and (0.9065, -0.0474, 0.9592) chained, z turned as the points are.
  const glm::vec3 head = world_of(s, child);
  EXPECT_NEAR(head.x, 0.9065412f, 1e-5f);
  EXPECT_NEAR(head.y, 0.5007058f - 0.0474353f, 1e-5f);
  EXPECT_NEAR(head.z, -0.9592472f, 1e-5f);
  ASSERT_EQ(s.skins.size(), 1u);
  const scene::Skin& skin = s.skins[0];
  ASSERT_EQ(skin.joints.size(), 2u);  // in the file's bone order
  EXPECT_EQ(skin.joints[0], static_cast<std::uint32_t>(root));
  EXPECT_EQ(skin.joints[1], static_cast<std::uint32_t>(child));
  const glm::vec4 local = skin.inverse_bind[1] * glm::vec4(head, 1.0f);
  EXPECT_NEAR(glm::length(glm::vec3(local)), 0.0f, 1e-5f);

  // The mesh's node is deformed by the skin; its one vertex in bone_child's map is the one at
  // (1, 0.4317, -1) in the scene (the point x-ray keeps at z = +1), wholly that bone's.
  const int mesh_node = node_named(s, "test_fmt_bones_mesh");
  ASSERT_GE(mesh_node, 0);
  EXPECT_EQ(s.nodes[static_cast<std::size_t>(mesh_node)].skin, 0);
  const scene::Mesh& m = s.meshes.at(0);
  ASSERT_EQ(m.joints.size(), m.positions.size());
  ASSERT_EQ(m.weights.size(), m.positions.size());
  int on_child = 0;
  for (std::size_t v = 0; v < m.positions.size(); ++v) {
    EXPECT_NEAR(m.weights[v].x + m.weights[v].y + m.weights[v].z + m.weights[v].w, 1.0f, 1e-6f) << v;
    if (m.joints[v].x == 1) {
      ++on_child;
      EXPECT_NEAR(m.positions[v].x, 1.0f, 1e-6f);
      EXPECT_NEAR(m.positions[v].y, 0.4316824f, 1e-6f);
      EXPECT_NEAR(m.positions[v].z, -1.0f, 1e-6f);
      EXPECT_EQ(m.weights[v].x, 1.0f);
    } else {
      EXPECT_EQ(m.joints[v].x, 0);
    }
  }
  EXPECT_EQ(on_child, 1);

  // Drawn as lines over the model: root to child, then the child (a leaf) 0.5 along its axis.
  const scene::Batch* lines = nullptr;
  for (const scene::Section& sec : s.sections)
    for (const scene::Batch& b : sec.batches)
      if (b.overlay && b.primitive == scene::Batch::Primitive::lines) lines = &b;
  ASSERT_NE(lines, nullptr);
  ASSERT_EQ(lines->positions.size(), 4u);
  EXPECT_NEAR(lines->positions[0].y, 0.5007058f, 1e-5f);
  EXPECT_NEAR(glm::length(lines->positions[1] - head), 0.0f, 1e-5f);
  EXPECT_NEAR(glm::length(lines->positions[3] - lines->positions[2]), 0.5f, 1e-5f);
  EXPECT_NEAR(lines->positions[3].z, head.z - 0.5f, 1e-5f);  // X-Ray's +z is the scene's -z
  ASSERT_EQ(lines->objects.size(), 4u);
  EXPECT_EQ(s.kinds.at(s.objects.at(lines->objects[0]).kind), "bones");
  EXPECT_EQ(s.objects.at(lines->objects[0]).index, 1u);  // bone_child's segment picks bone_child
  // The page gets them over the worker's wire still marked to be drawn over the model.
  auto wire = scene::deserialize(scene::serialize(s));
  ASSERT_TRUE(wire.ok()) << wire.error().describe();
  std::size_t overlays = 0;
  for (const scene::Section& sec : wire->sections)
    for (const scene::Batch& b : sec.batches) overlays += b.overlay ? b.positions.size() : 0;
  EXPECT_EQ(overlays, 4u);
}

TEST(XraySkin, AMotionIsSampledFrameByFrameIntoAnAnimation) {
  SCENERIA_REQUIRE_SAMPLES();
  const File plain = read("test_fmt_bones.object");
  auto f = read_object(with_motion(test::read_file(sample("test_fmt_bones.object")), plain.object.bones.at(1)));
  ASSERT_TRUE(f.ok()) << f.error().describe();
  ASSERT_EQ(f->object.motions.size(), 1u);
  const Motion& motion = f->object.motions[0];
  EXPECT_EQ(motion.name, "walk");
  EXPECT_EQ(motion.version, 6);
  ASSERT_EQ(motion.bones.size(), 1u);
  EXPECT_EQ(motion.bones[0].channels[0].keys.size(), 2u);
  EXPECT_EQ(motion.bones[0].channels[3].keys.at(0).shape, 4);
  XrayDocument doc(std::move(f).value(), 0, "walk.object");
  auto s = doc.scene();
  ASSERT_TRUE(s.ok()) << s.error().describe();
  ASSERT_EQ(s->animations.size(), 1u);
  const scene::Animation& a = s->animations[0];
  EXPECT_EQ(a.name, "walk");
  ASSERT_EQ(a.channels.size(), 2u);
  const int child = node_named(*s, "bone_child");
  const scene::Animation::Channel& t = a.channels[0];
  const scene::Animation::Channel& r = a.channels[1];
  EXPECT_EQ(t.node, static_cast<std::uint32_t>(child));
  EXPECT_EQ(t.path, scene::Animation::Path::translation);
  ASSERT_EQ(t.times.size(), 3u);  // frames 0, 1, 2
  EXPECT_FLOAT_EQ(t.times[1], 1.0f / 30.0f);
  // x halfway at frame 1; y and z held at the rest offset, z turned.
  EXPECT_NEAR(t.values[0].x, 0.0f, 1e-6f);
  EXPECT_NEAR(t.values[1].x, 0.5f, 1e-5f);
  EXPECT_NEAR(t.values[2].x, 1.0f, 1e-6f);
  EXPECT_NEAR(t.values[1].y, plain.object.bones[1].offset[1], 1e-6f);
  EXPECT_NEAR(t.values[1].z, -plain.object.bones[1].offset[2], 1e-6f);
  // A quarter turn about y in X-Ray's frame is one the other way in the scene's (the frames are
  // mirrored in z): (0, -sin 45°, 0, cos 45°).
  ASSERT_EQ(r.values.size(), 3u);
  const glm::vec4 q = r.values[2] * (r.values[2].w < 0 ? -1.0f : 1.0f);
  EXPECT_NEAR(q.x, 0.0f, 1e-5f);
  EXPECT_NEAR(q.y, -0.70710677f, 1e-5f);
  EXPECT_NEAR(q.z, 0.0f, 1e-5f);
  EXPECT_NEAR(q.w, 0.70710677f, 1e-5f);
}

// Every key shape with non-zero parameters, each value worked by hand from LightWave's envelope
// algorithm (its SDK's interp.c, which blender-xray follows): an interval is drawn by its end
// key's shape; the Hermite basis at t = 0.5 is h1 = h2 = 0.5, h3 = 0.125, h4 = -0.125.
TEST(XraySkin, EnvelopeTensionContinuityBiasHermiteAndBezierKeys) {
  const auto key = [](float value, float time, KeyShape shape, std::array<float, 7> p = {}) {
    return Key{.value = value, .time = time, .shape = static_cast<std::uint8_t>(shape), .tcb = p};
  };
  // Keys (0, 0), (1, 10), (3, 4).
  Envelope e;
  // Tension 0.5 on the middle key: arriving there, a = b = (1 - 0.5) = 0.5, scaled by the span
  // over the span to the next key, 1/3: (0.5 * (4 - 10) + 0.5 * 10) / 3 = 2/3. Leaving the first
  // key (no previous one): b * d = 10. Value: 0.5 * 10 + 0.125 * 10 - 0.125 * 2/3 = 6.1666667.
  e.keys = {key(0, 0, KeyShape::tcb), key(10, 1, KeyShape::tcb, {0.5f}), key(4, 3, KeyShape::tcb)};
  EXPECT_NEAR(evaluate(e, 0.5f), 6.1666667f, 1e-5f);
  // Continuity 0.5 and bias -0.5 on the middle key, read leaving it (interval 1, t = 0.5 at time
  // 2): a = 1 * 1.5 * 0.5 = 0.75, b = 1 * 0.5 * 1.5 = 0.75; out = 2/3 * (0.75 * 10 + 0.75 * -6) = 2.
  // Arriving at the last key (no next one): a * d = -6. Value: 0.5 * 10 + 0.5 * 4 + 0.125 * 2
  // - 0.125 * -6 = 8.
  e.keys = {key(0, 0, KeyShape::tcb), key(10, 1, KeyShape::tcb, {0, 0.5f, -0.5f}), key(4, 3, KeyShape::tcb)};
  EXPECT_NEAR(evaluate(e, 2.0f), 8.0f, 1e-5f);
  // Without the middle key's parameters the same point is Catmull-Rom: out = 2/3 * (10 - 6) = 8/3,
  // so the test above sees the parameters.
  e.keys[1].tcb = {};
  EXPECT_NEAR(evaluate(e, 2.0f), 7.0f + 0.125f * 8.0f / 3.0f + 0.75f, 1e-5f);
  // Hermite: tangents given, out of key 0 its param[1] = 2 (no previous key: as given), into key 1
  // its param[0] = 4 scaled by 1/3: 0.5 * 10 + 0.125 * 2 - 0.125 * 4/3 = 5.0833333.
  e.keys = {key(0, 0, KeyShape::hermite, {0, 0, 0, 0, 2}), key(10, 1, KeyShape::hermite, {0, 0, 0, 4}), key(4, 3, KeyShape::linear)};
  EXPECT_NEAR(evaluate(e, 0.5f), 5.0833333f, 1e-5f);
  // The 1D Bézier shape reads its tangents as Hermite does.
  e.keys[1].shape = static_cast<std::uint8_t>(KeyShape::bezier);
  EXPECT_NEAR(evaluate(e, 0.5f), 5.0833333f, 1e-5f);
  // 2D Bézier: handles (time, value) relative to their keys, out of key 0 (1/3, 3), into key 1
  // (-1/3, -6), so the curve's time is linear in its parameter and time 0.5 is u = 0.5:
  // 0.125 * 0 + 0.375 * 3 + 0.375 * (10 - 6) + 0.125 * 10 = 3.875.
  e.keys = {key(0, 0, KeyShape::bezier2, {0, 0, 0, 0, 0, 1.0f / 3, 3}), key(10, 1, KeyShape::bezier2, {0, 0, 0, -1.0f / 3, -6}),
            key(4, 3, KeyShape::linear)};
  EXPECT_NEAR(evaluate(e, 0.5f), 3.875f, 1e-4f);
  // Linear keys and the behaviours past the ends: (0,0) (1,10) (3,4).
  e.keys = {key(0, 0, KeyShape::linear), key(10, 1, KeyShape::linear), key(4, 3, KeyShape::linear)};
  EXPECT_NEAR(evaluate(e, 2.0f), 7.0f, 1e-6f);
  e.pre = e.post = 5;  // linear: on along the end intervals' slopes, 10 per second before, -3 after
  EXPECT_NEAR(evaluate(e, -1.0f), -10.0f, 1e-5f);
  EXPECT_NEAR(evaluate(e, 4.0f), 1.0f, 1e-5f);
  e.post = 3;  // oscillate: time 4 is in the second, mirrored cycle, at time 3 - 1 = 2
  EXPECT_NEAR(evaluate(e, 4.0f), 7.0f, 1e-5f);
  e.post = 4;  // offset repeat: time 1 of the next cycle, raised by 4 - 0
  EXPECT_NEAR(evaluate(e, 4.0f), 14.0f, 1e-5f);
  // A step end key holds the start key's value over its interval.
  e.keys[1].shape = static_cast<std::uint8_t>(KeyShape::step);
  EXPECT_NEAR(evaluate(e, 0.5f), 0.0f, 1e-6f);
}

TEST(XraySkin, EnvelopesFollowLightWaveShapesAndBehaviours) {
  Envelope e;
  e.pre = 1, e.post = 1;  // constant
  e.keys = {{.value = 0, .time = 0, .shape = 3}, {.value = 2, .time = 1, .shape = 3}, {.value = 2, .time = 2, .shape = 4}};
  EXPECT_FLOAT_EQ(evaluate(e, 0.5f), 1.0f);    // linear into key 1
  EXPECT_FLOAT_EQ(evaluate(e, 1.5f), 2.0f);    // a step key holds the previous value
  EXPECT_FLOAT_EQ(evaluate(e, -1.0f), 0.0f);   // constant before
  EXPECT_FLOAT_EQ(evaluate(e, 9.0f), 2.0f);    // and after
  e.post = 2;                                  // repeat
  EXPECT_FLOAT_EQ(evaluate(e, 2.5f), 1.0f);
  e.post = 4;                                  // offset repeat: each cycle adds last - first
  EXPECT_FLOAT_EQ(evaluate(e, 2.5f), 3.0f);
  e.post = 0;                                  // reset
  EXPECT_FLOAT_EQ(evaluate(e, 2.5f), 0.0f);
  // TCB with zero tension, continuity and bias is a Catmull-Rom spline: through (0,0), (1,1),
  // (2,0) it peaks above 1 on neither side of the middle key, and is symmetric.
  Envelope c;
  c.keys = {{.value = 0, .time = 0, .shape = 0}, {.value = 1, .time = 1, .shape = 0}, {.value = 0, .time = 2, .shape = 0}};
  EXPECT_FLOAT_EQ(evaluate(c, 1.0f), 1.0f);
  EXPECT_NEAR(evaluate(c, 0.5f), evaluate(c, 1.5f), 1e-6f);
  // Into the middle key: leaving the first key with the whole rise (1) as its tangent, arriving
  // flat (its neighbours are level); Hermite at t = 0.5 is h2 * 1 + h3 * 1 = 0.5 + 0.125.
  EXPECT_NEAR(evaluate(c, 0.5f), 0.625f, 1e-6f);
  EXPECT_FLOAT_EQ(evaluate(Envelope{}, 1.0f), 0.0f);
}

}  // namespace
}  // namespace sceneria::xray
