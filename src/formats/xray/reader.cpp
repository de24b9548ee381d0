#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "core/byte_reader.hpp"
#include "formats/xray/lzhuf.hpp"
#include "formats/xray/xray.hpp"

namespace sceneria::xray {

namespace {

// Unpacked bytes a file may grow to, in all: nested packed chunks multiply, and a hostile file
// must not turn kilobytes into gigabytes.
std::uint64_t unpack_budget(std::size_t file_size) { return std::uint64_t{file_size} * 256 + (std::uint64_t{16} << 20); }

Result<ChunkList> chunks_of(std::span<const std::uint8_t> bytes, std::uint64_t base, const std::string& where, std::uint64_t& budget) {
  ChunkList out;
  std::size_t at = 0;
  while (bytes.size() - at >= 8) {
    std::uint32_t raw = 0, size = 0;
    std::memcpy(&raw, bytes.data() + at, 4);
    std::memcpy(&size, bytes.data() + at + 4, 4);
    Chunk c;
    c.id = raw & ~kPackedBit;
    c.packed = (raw & kPackedBit) != 0;
    c.offset = base + at;
    const std::size_t left = bytes.size() - at - 8;
    if (size > left)
      return Error{Errc::bad_chunk_size, c.offset, fmt::format("{}: chunk {:#06x} at {:#x} claims {} bytes but only {} remain", where, c.id, c.offset, size, left)};
    const auto payload = bytes.subspan(at + 8, size);
    if (c.packed && size > 0) {
      if (size < 4) return Error{Errc::truncated, c.offset, fmt::format("{}: packed chunk {:#06x} at {:#x} has no unpacked size", where, c.id, c.offset)};
      std::uint32_t unpacked = 0;
      std::memcpy(&unpacked, payload.data(), 4);
      if (unpacked > budget)
        return Error{Errc::bad_count, c.offset, fmt::format("{}: packed chunk {:#06x} at {:#x} claims to unpack to {} bytes, more than the file can hold", where, c.id, c.offset, unpacked)};
      auto data = lzhuf_decode(payload.subspan(4), unpacked, c.offset + 12);
      if (!data) {
        Error e = data.error();
        e.message = fmt::format("{}: packed chunk {:#06x} at {:#x}: {}", where, c.id, c.offset, e.message);
        return e;
      }
      budget -= unpacked;
      c.data = std::move(data).value();
      c.stream.assign(payload.begin(), payload.end());
    } else {
      c.data.assign(payload.begin(), payload.end());
    }
    out.chunks.push_back(std::move(c));
    at += 8 + size;
  }
  out.trailing.assign(bytes.begin() + static_cast<std::ptrdiff_t>(at), bytes.end());
  return out;
}

// A chunk's payload as a cursor, messages naming the chunk (and, inside a packed parent, that the
// offset is the unpacked one).
ByteReader cursor(const Chunk& c, const std::string& where) {
  return ByteReader(c.data, c.offset + 8, [&c, &where] { return fmt::format("{}: chunk {} at {:#x}", where, chunk_id_text(c.id), c.offset); });
}
ByteReader cursor(const Chunk& c, std::string&& where) = delete;  // the reader would outlive it

std::string stringz(ByteReader& r, std::string_view what) {
  std::string s;
  while (r.ok()) {
    if (r.at_end()) {
      r.fail(Errc::truncated, fmt::format("{} has no NUL before the chunk ends", what));
      break;
    }
    const std::uint8_t c = r.u8();
    if (c == 0) break;
    s.push_back(static_cast<char>(c));
  }
  return s;
}
// A string that fills its chunk, NUL or not (user data, references): tolerant, as the readers are.
std::string whole_string(const Chunk& c) {
  const auto end = std::find(c.data.begin(), c.data.end(), std::uint8_t{0});
  return std::string(c.data.begin(), end);
}
template <std::size_t N>
std::array<float, N> floats(ByteReader& r) {
  std::array<float, N> out{};
  for (float& f : out) f = r.f32();
  return out;
}

class Decoder {
 public:
  Decoder(File& file, std::uint64_t& budget) : f_(file), budget_(budget) {}

  Error object(const Chunk& root) {
    const std::string where = "chunk 0x7777";
    auto list = chunks_of(root.data, root.offset + 8, where, budget_);
    if (!list) return list.error();
    Object& o = f_.object;
    const ChunkList& l = *list;
    const Chunk* version = l.find(0x0900);
    if (!version) return Error{Errc::bad_value, root.offset, "chunk 0x7777 has no version chunk (0x0900)"};
    {
      ByteReader r = cursor(*version, where);
      o.version = r.u16();
      if (!r.ok()) return r.error();
      if (o.version != 16)
        return Error{Errc::unsupported_version, version->offset, fmt::format("object version {} (chunk 0x0900 at {:#x}); only 16 is known", o.version, version->offset)};
    }
    for (const Chunk& c : l.chunks) {
      if (Error e = object_chunk(c, l, where)) return e;
    }
    return {};
  }

 private:
  Error object_chunk(const Chunk& c, const ChunkList& l, const std::string& where) {
    Object& o = f_.object;
    ByteReader r = cursor(c, where);
    switch (c.id) {
      case 0x0900: return {};
      case 0x0903:
        if (c.data.size() != 1 && c.data.size() != 4)
          return Error{Errc::bad_chunk_size, c.offset, fmt::format("{}: flags chunk 0x0903 at {:#x} holds {} bytes (1 or 4)", where, c.offset, c.data.size())};
        o.flags_width = c.data.size();
        o.flags = c.data.size() == 1 ? r.u8() : r.u32();
        return {};
      case 0x0905:
      case 0x0906:
      case 0x0907: return surfaces(c, l, where);
      case 0x0910: return meshes(c);
      case 0x0912: o.user_data = whole_string(c); return {};
      case 0x0913: return old_bones(c, where);
      case 0x0916: motions(c, where); return {};
      case 0x0919:
      case 0x0923: return bone_parts(c, where);
      case 0x0920:
        o.actor_transform = floats<6>(r);
        return r.error();
      case 0x0921: return bones(c);
      case 0x0922:
        o.creator = stringz(r, "the creator");
        o.create_time = r.u32();
        o.modifier = stringz(r, "the modifier");
        o.modify_time = r.u32();
        return r.error();
      case 0x0924: o.motion_refs = whole_string(c); return {};
      case 0x0925: o.lod_ref = whole_string(c); return {};
      case 0x0926: {
        const std::uint32_t n = r.u32();
        if (!r.check_count(n, 1, "the motion references")) return r.error();
        for (std::uint32_t k = 0; k < n && r.ok(); ++k) o.motion_refs += (k ? "," : "") + stringz(r, "a motion reference");
        return r.error();
      }
      case 0x0902:
      case 0x0911:
      case 0x0914:
      case 0x0917:
      case 0x0918: return {};  // known, nothing a viewer needs (0x0918 is read with 0x0905)
      default: o.unknown_chunks.push_back(c.id); return {};
    }
  }

  Error surfaces(const Chunk& c, const ChunkList& l, const std::string& where) {
    Object& o = f_.object;
    if (o.surface_chunk) return Error{Errc::bad_value, c.offset, fmt::format("{}: a second surfaces chunk ({} at {:#x})", where, chunk_id_text(c.id), c.offset)};
    o.surface_chunk = static_cast<int>(c.id);
    ByteReader r = cursor(c, where);
    const std::uint32_t n = r.u32();
    if (!r.check_count(n, 6, "the surface list")) return r.error();
    for (std::uint32_t k = 0; k < n && r.ok(); ++k) {
      Surface s;
      s.name = stringz(r, "a surface's name");
      if (c.id == 0x0907) {
        s.shader = stringz(r, "a surface's shader");
        s.compiler_shader = stringz(r, "a surface's compiler shader");
        s.game_material = stringz(r, "a surface's game material");
        s.texture = stringz(r, "a surface's texture");
        s.vmap = stringz(r, "a surface's vmap");
        s.flags = r.u32(), s.fvf = r.u32(), s.uv_sets = r.u32();
      } else if (c.id == 0x0906) {
        s.shader = stringz(r, "a surface's shader");
        s.compiler_shader = stringz(r, "a surface's compiler shader");
        s.texture = stringz(r, "a surface's texture");
        s.vmap = stringz(r, "a surface's vmap");
        s.flags = r.u32(), s.fvf = r.u32(), s.uv_sets = r.u32();
      } else {
        s.shader = stringz(r, "a surface's shader");
        s.flags = r.u8() ? 1u : 0u;
        s.fvf = r.u32(), s.uv_sets = r.u32();
        s.texture = stringz(r, "a surface's texture");
        s.vmap = stringz(r, "a surface's vmap");
      }
      o.surfaces.push_back(std::move(s));
    }
    if (!r.ok()) return r.error();
    if (c.id == 0x0905)
      if (const Chunk* xrlc = l.find(0x0918)) {
        ByteReader x = cursor(*xrlc, where);
        for (Surface& s : o.surfaces)
          if (!x.at_end()) s.compiler_shader = stringz(x, "a surface's compiler shader");
        if (!x.ok()) return x.error();
      }
    return {};
  }

  Error meshes(const Chunk& c) {
    const std::string where = fmt::format("the meshes (chunk 0x0910 at {:#x})", c.offset);
    auto list = chunks_of(c.data, c.offset + 8, where, budget_);
    if (!list) return list.error();
    for (const Chunk& m : list->chunks) {
      const std::string mesh_where = fmt::format("mesh {} at {:#x}", m.id, m.offset);
      auto subs = chunks_of(m.data, m.offset + 8, mesh_where, budget_);
      if (!subs) return subs.error();
      Mesh mesh;
      for (const Chunk& s : subs->chunks)
        if (Error e = mesh_chunk(s, mesh, mesh_where)) return e;
      check(mesh, mesh_where);
      f_.object.meshes.push_back(std::move(mesh));
    }
    return {};
  }

  Error mesh_chunk(const Chunk& c, Mesh& m, const std::string& where) {
    ByteReader r = cursor(c, where);
    switch (c.id) {
      case 0x1000:
        m.version = r.u16();
        if (r.ok() && m.version != 17)
          return Error{Errc::unsupported_version, c.offset, fmt::format("{}: mesh version {} (chunk 0x1000 at {:#x}); only 17 is known", where, m.version, c.offset)};
        break;
      case 0x1001: m.name = whole_string(c); break;
      case 0x1002: m.flags = r.u8(); break;
      case 0x1004: m.bbox = floats<6>(r); break;
      case 0x1005: {
        const std::uint32_t n = r.u32();
        if (!r.check_count(n, 12, "the points")) break;
        m.points.resize(n);
        for (auto& p : m.points) p = floats<3>(r);
        m.adjacency_bytes = r.remaining();  // old files: each point's faces
        break;
      }
      case 0x1006: {
        const std::uint32_t n = r.u32();
        if (!r.check_count(n, 24, "the faces")) break;
        m.faces.resize(n);
        for (Face& f : m.faces)
          for (int k = 0; k < 3; ++k) f.point[static_cast<std::size_t>(k)] = r.u32(), f.vmref[static_cast<std::size_t>(k)] = r.u32();
        break;
      }
      case 0x1007:
      case 0x1011:
      case 0x1012: {
        m.vmap_chunk = static_cast<int>(c.id);
        const std::uint32_t n = r.u32();
        if (!r.check_count(n, 5, "the vmaps")) break;
        for (std::uint32_t k = 0; k < n && r.ok(); ++k) {
          VMap v;
          v.name = stringz(r, "a vmap's name");
          if (c.id == 0x1007) {
            v.dim = 2, v.type = 0;
          } else {
            v.dim = r.u8();
            if (c.id == 0x1012) v.polymap = r.u8() != 0;
            v.type = r.u8() & 3;
          }
          const std::uint32_t size = r.u32();
          if (v.dim != 1 && v.dim != 2) {
            r.fail(Errc::bad_value, fmt::format("vmap \"{}\" has {} values per entry (1 or 2)", v.name, v.dim));
            break;
          }
          const std::uint64_t per = std::uint64_t{v.dim} * 4 + (c.id == 0x1012 ? 4 + (v.polymap ? 4 : 0) : 0);
          if (!r.check_count(size, per, fmt::format("vmap \"{}\"", v.name))) break;
          v.data.resize(std::size_t{size} * v.dim);
          for (float& f : v.data) f = r.f32();
          if (c.id == 0x1012) {
            v.points.resize(size);
            for (auto& p : v.points) p = r.u32();
            if (v.polymap) {
              v.faces.resize(size);
              for (auto& p : v.faces) p = r.u32();
            }
          }
          m.vmaps.push_back(std::move(v));
        }
        break;
      }
      case 0x1008: {
        const std::uint32_t n = r.u32();
        if (!r.check_count(n, 1, "the vmrefs")) break;
        m.vmref_start.reserve(std::size_t{n} + 1);
        for (std::uint32_t k = 0; k < n && r.ok(); ++k) {
          m.vmref_start.push_back(static_cast<std::uint32_t>(m.vmref_pairs.size()));
          const std::uint8_t pairs = r.u8();
          if (!r.check_count(pairs, 8, "a vmref's pairs")) break;
          for (std::uint8_t p = 0; p < pairs; ++p) m.vmref_pairs.push_back({r.u32(), r.u32()});
        }
        m.vmref_start.push_back(static_cast<std::uint32_t>(m.vmref_pairs.size()));
        break;
      }
      case 0x1009: {
        const std::uint16_t n = r.u16();
        for (std::uint16_t k = 0; k < n && r.ok(); ++k) {
          SurfaceFaces s;
          s.surface = stringz(r, "a surface's name");
          const std::uint32_t count = r.u32();
          if (!r.check_count(count, 4, fmt::format("surface \"{}\"'s faces", s.surface))) break;
          s.faces.resize(count);
          for (auto& f : s.faces) f = r.u32();
          m.surfaces.push_back(std::move(s));
        }
        break;
      }
      case 0x1013: {
        m.smoothing.resize(c.data.size() / 4);
        for (auto& g : m.smoothing) g = r.u32();
        break;
      }
      case 0x1014: {
        m.normals.resize(c.data.size() / 12);
        for (auto& n : m.normals) n = floats<3>(r);
        break;
      }
      default: break;  // 0x1003, 0x1010 and others: kept in the tree
    }
    return r.error();
  }

  // What a render mesh needs to hold together; a break is a warning (the scene skips what breaks).
  void check(const Mesh& m, const std::string& where) {
    std::size_t bad_points = 0, bad_refs = 0, degenerate = 0;
    for (const Face& f : m.faces) {
      for (int k = 0; k < 3; ++k) {
        bad_points += f.point[static_cast<std::size_t>(k)] >= m.points.size();
        bad_refs += f.vmref[static_cast<std::size_t>(k)] >= m.vmref_count();
      }
      degenerate += f.point[0] == f.point[1] || f.point[1] == f.point[2] || f.point[0] == f.point[2];
    }
    if (bad_points) warn(fmt::format("{}: {} face corners name a point past its {} points", where, bad_points, m.points.size()));
    if (bad_refs && m.vmref_count()) warn(fmt::format("{}: {} face corners name a vmref past its {}", where, bad_refs, m.vmref_count()));
    if (degenerate) warn(fmt::format("{}: {} degenerate face{} (a point used twice), not drawn", where, degenerate, degenerate == 1 ? "" : "s"));
    for (const auto& [vmap, index] : m.vmref_pairs)
      if (vmap >= m.vmaps.size() || index >= m.vmaps[vmap].size()) {
        warn(fmt::format("{}: a vmref names entry {} of vmap {} of {}", where, index, vmap, m.vmaps.size()));
        break;
      }
    std::vector<std::uint8_t> owned(m.faces.size(), 0);
    for (const SurfaceFaces& s : m.surfaces)
      for (std::uint32_t face : s.faces)
        if (face < owned.size()) owned[face] = static_cast<std::uint8_t>(std::min(owned[face] + 1, 2));
    const auto none = std::count(owned.begin(), owned.end(), 0), twice = std::count(owned.begin(), owned.end(), 2);
    if (none) warn(fmt::format("{}: {} face{} in no surface", where, none, none == 1 ? "" : "s"));
    if (twice) warn(fmt::format("{}: {} face{} in more than one surface", where, twice, twice == 1 ? "" : "s"));
  }

  Error old_bones(const Chunk& c, const std::string& where) {
    Object& o = f_.object;
    o.bone_chunk = 0x0913;
    ByteReader r = cursor(c, where);
    const std::uint32_t n = r.u32();
    if (!r.check_count(n, 31, "the bones")) return r.error();
    for (std::uint32_t k = 0; k < n && r.ok(); ++k) {
      Bone b;
      b.name = stringz(r, "a bone's name");
      b.parent = stringz(r, "a bone's parent");
      b.weight_map = stringz(r, "a bone's weight map");
      b.offset = floats<3>(r);
      b.rotate = floats<3>(r);
      b.length = r.f32();
      o.bones.push_back(std::move(b));
    }
    return r.error();
  }

  Error bones(const Chunk& c) {
    Object& o = f_.object;
    o.bone_chunk = 0x0921;
    const std::string where = fmt::format("the bones (chunk 0x0921 at {:#x})", c.offset);
    auto list = chunks_of(c.data, c.offset + 8, where, budget_);
    if (!list) return list.error();
    for (const Chunk& one : list->chunks) {
      const std::string bone_where = fmt::format("bone {} at {:#x}", one.id, one.offset);
      auto subs = chunks_of(one.data, one.offset + 8, bone_where, budget_);
      if (!subs) return subs.error();
      Bone b;
      bool defined = false;
      for (const Chunk& s : subs->chunks) {
        ByteReader r = cursor(s, bone_where);
        switch (s.id) {
          case 0x0001: b.version = r.u16(); break;
          case 0x0002:
            if (defined) break;  // written twice; the second holds only the name
            defined = true;
            b.name = stringz(r, "the bone's name");
            b.parent = stringz(r, "the bone's parent");
            b.weight_map = stringz(r, "the bone's weight map");
            break;
          case 0x0003:
            b.offset = floats<3>(r), b.rotate = floats<3>(r), b.length = r.f32();
            break;
          case 0x0004: b.game_material = whole_string(s); break;
          case 0x0005: b.shape_type = r.u16(), b.shape_flags = r.u16(); break;
          case 0x0006: b.ik_type = r.u32(); break;
          case 0x0007: b.mass = r.f32(), b.centre_of_mass = floats<3>(r); break;
          case 0x0008: b.ik_flags = r.u32(); break;
          case 0x0009: b.break_force = r.f32(), b.break_torque = r.f32(); break;
          case 0x0010: b.friction = r.f32(); break;
          default: break;
        }
        if (!r.ok()) return r.error();
      }
      o.bones.push_back(std::move(b));
    }
    return {};
  }

  Error bone_parts(const Chunk& c, const std::string& where) {
    ByteReader r = cursor(c, where);
    const std::uint32_t n = r.u32();
    if (!r.check_count(n, 5, "the bone parts")) return r.error();
    for (std::uint32_t k = 0; k < n && r.ok(); ++k) {
      BonePart p;
      p.alias = stringz(r, "a bone part's name");
      const std::uint32_t count = r.u32();
      if (!r.check_count(count, c.id == 0x0919 ? 4 : 1, "a bone part's bones")) break;
      for (std::uint32_t b = 0; b < count && r.ok(); ++b)
        p.bones.push_back(c.id == 0x0919 ? std::to_string(r.u32()) : stringz(r, "a bone's name"));
      f_.object.bone_parts.push_back(std::move(p));
    }
    return r.error();
  }

  // Skeletal motions: a motion that does not read is a warning (and the rest are not read); the
  // chunk's bytes stay in the tree either way.
  void motions(const Chunk& c, const std::string& where) {
    ByteReader r = cursor(c, where);
    const std::uint32_t n = r.u32();
    if (!r.check_count(n, 15, "the motions")) return warn(r.error().message);
    for (std::uint32_t k = 0; k < n && r.ok(); ++k) {
      Motion m;
      m.name = stringz(r, "a motion's name");
      m.frame_start = r.u32(), m.frame_end = r.u32();
      m.fps = r.f32();
      m.version = r.u16();
      std::uint32_t bones = 0;
      const bool old = m.version < 6;
      if (m.version == 4) {
        m.bone_part = r.u32();
        m.flags = r.u8();
        m.flags |= std::uint32_t{r.u8()} << 8;  // stop at end
        m.speed_accrue_falloff_power = floats<4>(r);
        bones = r.u32();
      } else if (m.version == 5) {
        m.flags = r.u32(), m.bone_part = r.u32();
        m.speed_accrue_falloff_power = floats<4>(r);
        bones = r.u32();
      } else if (m.version == 6 || m.version == 7) {
        m.flags = r.u8(), m.bone_part = r.u16();
        m.speed_accrue_falloff_power = floats<4>(r);
        bones = r.u16();
      } else {
        return warn(fmt::format("{}: motion \"{}\" has version {} (4 to 7 are known): the motions from it on are not read", where, m.name, m.version));
      }
      if (!r.check_count(bones, old ? 4 : 2, fmt::format("motion \"{}\"'s bones", m.name))) break;
      for (std::uint32_t b = 0; b < bones && r.ok(); ++b) {
        MotionBone mb;
        if (m.version != 4) mb.name = stringz(r, "a motion bone's name");
        mb.flags = old ? r.u32() : r.u8();
        for (Envelope& e : mb.channels) envelope(r, e, old);
        m.bones.push_back(std::move(mb));
      }
      if (m.version == 7 && r.ok()) {
        const std::uint32_t marks = r.u32();
        if (marks) return warn(fmt::format("{}: motion \"{}\" has {} marks, which are not read: the motions after it are not read", where, m.name, marks));
      }
      if (r.ok()) f_.object.motions.push_back(std::move(m));
    }
    if (!r.ok()) warn(r.error().message);
  }
  static void envelope(ByteReader& r, Envelope& e, bool old) {
    std::uint32_t count = 0;
    if (old) {
      e.pre = static_cast<std::uint8_t>(r.u32()), e.post = static_cast<std::uint8_t>(r.u32());
      count = r.u32();
    } else {
      e.pre = r.u8(), e.post = r.u8();
      count = r.u16();
    }
    if (!r.check_count(count, old ? 40 : 9, "an envelope's keys")) return;
    e.keys.resize(count);
    for (Key& k : e.keys) {
      k.value = r.f32(), k.time = r.f32();
      if (old) {
        k.shape = static_cast<std::uint8_t>(r.u32());
        for (float& t : k.tcb) t = r.f32();
      } else {
        k.shape = r.u8();
        if (k.shape != 4)  // STEP keys carry no parameters
          for (float& t : k.tcb) t = static_cast<float>(r.u16()) / 65535.0f * 64.0f - 32.0f;
      }
    }
  }

  void warn(std::string message) { f_.warnings.push_back({{}, 0, 0, 0, std::move(message)}); }

  File& f_;
  std::uint64_t& budget_;
};

}  // namespace

std::string chunk_id_text(std::uint32_t id) { return fmt::format("{:#06x}", id); }

const Chunk* ChunkList::find(std::uint32_t id) const {
  for (const Chunk& c : chunks)
    if (c.id == id) return &c;
  return nullptr;
}

Result<ChunkList> read_chunks(std::span<const std::uint8_t> bytes, std::uint64_t base, const std::string& where) {
  std::uint64_t budget = unpack_budget(bytes.size());
  return chunks_of(bytes, base, where, budget);
}

Result<File> read_object(std::span<const std::uint8_t> bytes) {
  std::uint64_t budget = unpack_budget(bytes.size());
  File f;
  auto root = chunks_of(bytes, 0, "the file", budget);
  if (!root) return root.error();
  f.root = std::move(root).value();
  const Chunk* main = f.root.find(0x7777);
  if (!main) return Error{Errc::bad_magic, 0, "not an X-Ray object: the file has no chunk 0x7777"};
  if (Error e = Decoder(f, budget).object(*main)) return e;
  if (f.root.chunks.size() > 1 || !f.root.trailing.empty())
    f.warnings.push_back({{}, 0, 0, 0, "the file holds more than its object chunk: kept, not read"});
  return f;
}

}  // namespace sceneria::xray
