// T3D -> E3D as the engine's converter does it (TModel3d::Init then SaveToBinFile): the banana
// root, the axis rotation (TSubModel::InitialRotate), the flags gathered over the tree
// (FlagsCheck), the geometry offsets (create_geometry), and the writer's submodel order, string
// and matrix tables. The tree is walked with explicit stacks: a hostile file's chains can be
// long enough to overflow recursion.
#include <algorithm>
#include <cstddef>
#include <cstring>

#include <glm/glm.hpp>
#include <glm/gtc/packing.hpp>

#include "formats/t3d/t3d.hpp"

namespace sceneria::t3d {
namespace {

bool is_identity(const std::array<float, 16>& m) {
  for (std::size_t i = 0; i < 16; ++i)
    if (m[i] != (i % 5 ? 0.0f : 1.0f)) return false;
  return true;
}

bool is_emitter(const Submodel& s) {
  if (s.type != e3d::rotator || s.name.size() < 12) return false;
  std::string head = s.name.substr(0, 12);
  for (char& c : head) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return head == "smokesource_";
}

// float4x4::InitialRotate: X negated and Y, Z swapped in every column (R applied from the left).
void rotate_matrix(std::array<float, 16>& e) {
  for (std::size_t i = 0; i < 16; i += 4) {
    e[i] = -e[i];
    std::swap(e[i + 1], e[i + 2]);
  }
}

// float4x4 * vec3 as the engine writes it out (the translation row added last).
glm::vec3 transform(const std::array<float, 16>& m, const glm::vec3& v) {
  return {v.x * m[0] + v.y * m[4] + v.z * m[8] + m[12], v.x * m[1] + v.y * m[5] + v.z * m[9] + m[13], v.x * m[2] + v.y * m[6] + v.z * m[10] + m[14]};
}

glm::vec3 v3(const std::array<float, 3>& a) { return {a[0], a[1], a[2]}; }
std::array<float, 3> a3(const glm::vec3& v) { return {v.x, v.y, v.z}; }

void initial_rotate(Model& m, const Options& o) {
  std::vector<std::pair<std::int32_t, bool>> stack{{m.root, true}};
  const glm::mat4 r{{-1.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 1.f, 0.f}, {0.f, 1.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 1.f}};
  const glm::mat3 rn{{-1.f, 0.f, 0.f}, {0.f, 0.f, 1.f}, {0.f, 1.f, 0.f}};
  while (!stack.empty()) {
    const auto [i, doit] = stack.back();
    stack.pop_back();
    if (i < 0) continue;
    Submodel& s = m.submodels[static_cast<std::size_t>(i)];
    if (s.next >= 0) stack.push_back({s.next, doit});
    if (s.flags & 0xC000) {  // animated or a non-identity matrix: the matrix takes the rotation
      if (doit) {
        if (!s.matrix_given) s.matrix = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, s.matrix_given = true;
        s.flags |= 0x8000;
        rotate_matrix(s.matrix);
        if (is_identity(s.matrix)) s.flags &= ~0x8000u;
      }
      if (s.child >= 0) {
        stack.push_back({s.child, false});
      } else if (o.flatten && (s.flags & 0xC000) == 0x8000 && !is_emitter(s)) {
        // A leaf with a plain matrix: multiplied into its vertices, the matrix made identity.
        for (Vertex& v : s.vertices) v.position = a3(transform(s.matrix, v3(v.position)));
        s.matrix[12] = s.matrix[13] = s.matrix[14] = 0.0f;
        if (s.type != e3d::stars)
          for (Vertex& v : s.vertices) {
            v.normal = a3(transform(s.matrix, v3(v.normal)));
            const glm::vec3 t = transform(s.matrix, {v.tangent[0], v.tangent[1], v.tangent[2]});
            v.tangent = {t.x, t.y, t.z, v.tangent[3]};
          }
        s.matrix = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        s.flags &= ~0x8000u;
      }
    } else if (doit) {  // identity: the vertices take the rotation, and the children after them
      for (Vertex& v : s.vertices) {
        const glm::vec4 p = r * glm::vec4(v3(v.position), 1.f);
        v.position = {p.x, p.y, p.z};
        if (s.type != e3d::stars) {
          v.normal = a3(rn * v3(v.normal));
          const glm::vec3 t = rn * glm::vec3(v.tangent[0], v.tangent[1], v.tangent[2]);
          v.tangent = {t.x, t.y, t.z, v.tangent[3]};
        }
      }
      if (s.child >= 0) stack.push_back({s.child, true});
    }
  }
}

// Pre-order from the root: each submodel, its next chain, then its children, as the engine's
// recursions reach them (reversed, every submodel comes after all it reaches).
std::vector<std::int32_t> preorder(const Model& m) {
  std::vector<std::int32_t> out, stack{m.root};
  while (!stack.empty()) {
    const std::int32_t i = stack.back();
    stack.pop_back();
    if (i < 0) continue;
    out.push_back(i);
    const Submodel& s = m.submodels[static_cast<std::size_t>(i)];
    stack.push_back(s.child);
    stack.push_back(s.next);
  }
  return out;
}

// TSubModel::FlagsCheck: bit 0x80 where the texture changes, children's flags in bits 16-23,
// the next chain's in 24-31. Materials compare as the engine's handles do: by name.
void flags_check(Model& m) {
  const auto same = [&](const Submodel& a, const Submodel& b) {
    return a.material == b.material && (a.material != 1 || a.material_name == b.material_name);
  };
  // A child whose material differs from its parent's sets its own texture (0x80). Only materials
  // decide it, so it can be set before the walk (the engine sets it just before the child's check).
  for (const Submodel& s : m.submodels)
    if (s.child >= 0) {
      Submodel& c = m.submodels[static_cast<std::size_t>(s.child)];
      if (c.material != 0 && !same(c, s)) c.flags |= 0x80;
    }
  const auto order = preorder(m);
  std::vector<std::uint32_t> result(m.submodels.size(), 0);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Submodel& s = m.submodels[static_cast<std::size_t>(*it)];
    std::uint32_t i = 0;
    if (s.child >= 0) {
      i = result[static_cast<std::size_t>(s.child)];
      s.flags |= 0x00FF0000u & ((i << 16) | i | (i >> 8));
      if (s.type == e3d::text)
        for (std::int32_t p = s.child; p >= 0; p = m.submodels[static_cast<std::size_t>(p)].next) m.submodels[static_cast<std::size_t>(p)].flags &= 0xC0FFFFFFu;
    }
    if (s.next >= 0) {
      const Submodel& n = m.submodels[static_cast<std::size_t>(s.next)];
      if (s.material != 0 && (!same(s, n) || (i & 0x00800000u))) s.flags |= 0x80;
      i = result[static_cast<std::size_t>(s.next)];
      s.flags |= 0xFF000000u & ((i << 24) | (i << 8) | i);
    }
    result[static_cast<std::size_t>(*it)] = s.flags;
  }
}

// Children first, then the submodel, then its next chain: the order of the geometry pools.
std::vector<std::int32_t> geometry_order(const Model& m) {
  std::vector<std::int32_t> out;
  struct Step {
    std::int32_t i;
    bool emit;
  };
  std::vector<Step> stack{{m.root, false}};
  while (!stack.empty()) {
    const Step st = stack.back();
    stack.pop_back();
    if (st.i < 0) continue;
    if (st.emit) {
      out.push_back(st.i);
      continue;
    }
    const Submodel& s = m.submodels[static_cast<std::size_t>(st.i)];
    stack.push_back({s.next, false});
    stack.push_back({st.i, true});
    stack.push_back({s.child, false});
  }
  return out;
}

template <class T>
void put(std::vector<std::uint8_t>& out, T v) {
  std::uint8_t b[sizeof v];
  std::memcpy(b, &v, sizeof v);
  out.insert(out.end(), b, b + sizeof v);
}

}  // namespace

e3d::Model to_e3d(Model m, const Options& o) {
  if (m.root < 0) return {};
  // The banana: a vehicle whose root has siblings gets an empty animated root above them.
  if (o.banana && o.vehicle) {
    if (m.submodels[static_cast<std::size_t>(m.root)].next >= 0) {
      Submodel b;
      b.matrix_given = false;
      b.child = m.root;
      m.root = static_cast<std::int32_t>(m.submodels.size());
      m.submodels.push_back(std::move(b));
    }
    m.submodels[static_cast<std::size_t>(m.root)].flags |= 0x4000;
  }
  initial_rotate(m, o);
  flags_check(m);

  // Pools and offsets.
  const auto geometry = geometry_order(m);
  std::vector<std::int32_t> vertex_offset(m.submodels.size(), 0), index_offset(m.submodels.size(), 0);
  bool user_data = false;
  int index_size = 1;
  for (const Submodel& s : m.submodels) {
    user_data = user_data || !s.user_data.empty();
    index_size = std::max(index_size, s.indices.size() >= (1u << 16) ? 4 : s.indices.size() >= (1u << 8) ? 2 : 1);
  }
  const bool indexed = m.index_total > 0;
  const int variant = (indexed ? (o.float_vertices ? 2 : 1) : 0) | (user_data ? 4 : 0);
  std::vector<std::uint8_t> vertices, indices;
  std::int32_t vertex_at = 0, index_at = 0;
  // Float vertices are the Vertex's own floats (position, normal, uv, then the tangent when
  // indexed), copied whole; packed ones take 20 bytes. User data follows either.
  static_assert(sizeof(Vertex) == 12 * sizeof(float) && offsetof(Vertex, uv) == 6 * sizeof(float) && offsetof(Vertex, tangent) == 8 * sizeof(float));
  const std::size_t floats = (indexed ? 12 : 8) * sizeof(float);
  const std::size_t stride = (variant & 3) == 1 ? 20 + (user_data ? 8 : 0) : floats + (user_data ? 4 * sizeof(float) : 0);
  {  // one allocation each: the pools grow by the vertex and index, a million times in a large model
    std::size_t vertex_total = 0, index_total = 0;
    for (std::int32_t i : geometry) vertex_total += m.submodels[static_cast<std::size_t>(i)].vertices.size(), index_total += m.submodels[static_cast<std::size_t>(i)].indices.size();
    vertices.reserve(vertex_total * stride), indices.reserve(index_total * static_cast<std::size_t>(index_size));
  }
  for (std::int32_t i : geometry) {
    const Submodel& s = m.submodels[static_cast<std::size_t>(i)];
    if (s.vertices.empty()) continue;
    vertex_offset[static_cast<std::size_t>(i)] = vertex_at, index_offset[static_cast<std::size_t>(i)] = index_at;
    vertex_at += static_cast<std::int32_t>(s.vertices.size()), index_at += static_cast<std::int32_t>(s.indices.size());
    if ((variant & 3) == 1) {  // packed: half floats and 10-bit normals
      for (std::size_t k = 0; k < s.vertices.size(); ++k) {
        const Vertex& v = s.vertices[k];
        put(vertices, glm::packHalf4x16({v.position[0], v.position[1], v.position[2], 0.f}));
        put(vertices, glm::packSnorm3x10_1x2({v.normal[0], v.normal[1], v.normal[2], 0.f}));
        put(vertices, glm::packHalf1x16(v.uv[0]));
        put(vertices, glm::packHalf1x16(v.uv[1]));
        put(vertices, glm::packSnorm3x10_1x2({v.tangent[0], v.tangent[1], v.tangent[2], v.tangent[3]}));
        if (user_data) {
          const std::array<float, 4> u = k < s.user_data.size() ? s.user_data[k] : std::array<float, 4>{};
          put(vertices, glm::packHalf4x16({u[0], u[1], u[2], u[3]}));
        }
      }
    } else {
      const std::size_t at = vertices.size();
      if (stride == sizeof(Vertex)) {  // indexed without user data: the submodel's vertices as they lie
        const auto* first = reinterpret_cast<const std::uint8_t*>(s.vertices.data());
        vertices.insert(vertices.end(), first, first + s.vertices.size() * sizeof(Vertex));
      } else {
        vertices.resize(at + s.vertices.size() * stride);
        std::uint8_t* w = vertices.data() + at;
        for (std::size_t k = 0; k < s.vertices.size(); ++k, w += stride) {
          std::memcpy(w, &s.vertices[k], floats);
          if (user_data) {
            const std::array<float, 4> u = k < s.user_data.size() ? s.user_data[k] : std::array<float, 4>{};
            std::memcpy(w + floats, u.data(), sizeof u);
          }
        }
      }
    }
    const std::size_t at = indices.size();
    indices.resize(at + s.indices.size() * static_cast<std::size_t>(index_size));
    std::uint8_t* w = indices.data() + at;
    if (index_size == 4) {
      if (!s.indices.empty()) std::memcpy(w, s.indices.data(), s.indices.size() * 4);
    } else {
      for (std::uint32_t x : s.indices) {
        if (index_size == 1) *w++ = static_cast<std::uint8_t>(x);
        else {
          const auto h = static_cast<std::uint16_t>(x);
          std::memcpy(w, &h, 2);
          w += 2;
        }
      }
    }
  }

  // SaveToBinFile: submodels numbered as reached (each one's next, then its child, appended),
  // names, textures and matrices each listed once in that order.
  std::vector<std::int32_t> order{m.root}, number(m.submodels.size(), -1);
  number[static_cast<std::size_t>(m.root)] = 0;
  std::vector<std::string> names, textures{""};
  std::vector<std::array<float, 16>> matrices;
  const auto position_of = [](auto& list, const auto& value) {
    const auto it = std::find(list.begin(), list.end(), value);
    if (it != list.end()) return static_cast<std::int32_t>(it - list.begin());
    list.push_back(value);
    return static_cast<std::int32_t>(list.size() - 1);
  };
  e3d::Model out;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const auto i = static_cast<std::size_t>(order[k]);
    const Submodel& s = m.submodels[i];
    e3d::Submodel r;
    for (std::int32_t link : {s.next, s.child}) {
      if (link < 0) continue;
      if (number[static_cast<std::size_t>(link)] < 0) {
        number[static_cast<std::size_t>(link)] = static_cast<std::int32_t>(order.size());
        order.push_back(link);
      }
    }
    r.next = s.next >= 0 ? number[static_cast<std::size_t>(s.next)] : -1;
    r.child = s.child >= 0 ? number[static_cast<std::size_t>(s.child)] : -1;
    r.type = s.type;
    r.name = s.name.empty() ? -1 : position_of(names, s.name);
    r.anim = s.anim;
    r.flags = s.flags;
    // Matrices compare as floats: 0 and -0 are one matrix, the first one's bytes kept.
    std::int32_t matrix = -1;
    for (std::size_t j = 0; j < matrices.size() && matrix < 0; ++j)
      if (std::equal(matrices[j].begin(), matrices[j].end(), s.matrix.begin())) matrix = static_cast<std::int32_t>(j);
    if (matrix < 0) matrix = static_cast<std::int32_t>(matrices.size()), matrices.push_back(s.matrix);
    r.matrix = matrix;
    r.vertex_count = static_cast<std::int32_t>(s.vertices.size());
    r.vertex_offset = vertex_offset[i];
    r.texture = s.material <= 0 ? s.material : position_of(textures, s.material_name);
    r.visible = 1.f;
    r.self_illum = s.self_illum;
    r.ambient = s.ambient, r.diffuse = s.diffuse, r.specular = s.specular, r.emission = s.emission;
    r.wire_size = s.wire_size;
    r.max_distance_sq = s.max_distance_sq, r.min_distance_sq = s.min_distance_sq;
    r.light = s.light;
    r.index_count = static_cast<std::int32_t>(s.indices.size());
    r.index_offset = index_offset[i];
    r.diffuse_multiplier = s.diffuse_multiplier;
    out.submodels.push_back(std::move(r));
  }
  for (const auto& mat : matrices) {
    std::array<double, 16> d{};
    for (std::size_t e = 0; e < 16; ++e) d[e] = mat[e];
    out.matrices.push_back(d);
  }
  const auto chunk = [&](const char* id) {
    e3d::ChunkInfo c;
    std::memcpy(c.id.data(), id, 4);
    out.chunks.push_back(std::move(c));
  };
  chunk("SUB0");
  chunk("TRA0");
  if (indexed) {
    const char id[5] = {'I', 'D', 'X', static_cast<char>('0' + index_size), 0};
    chunk(id);
    out.index_size = index_size;
    out.index_bytes = std::move(indices);
  }
  const char vnt[5] = {'V', 'N', 'T', static_cast<char>('0' + variant), 0};
  chunk(vnt);
  out.vertex_variant = variant;
  out.vertex_bytes = std::move(vertices);
  chunk("TEX0");
  out.textures = std::move(textures);
  if (!names.empty()) {
    chunk("NAM0");
    out.names = std::move(names);
  }
  // Read back from its bytes: the reader sets what a model read from a file has (chunk offsets,
  // parents, records).
  auto back = e3d::reread_model(out);
  return back ? std::move(back).value() : out;
}

}  // namespace sceneria::t3d
