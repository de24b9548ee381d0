#pragma once
// The loader's two searches over a submodel's triangles, answered from indexes instead of scans:
// SeekFaceNormal (smoothing-group normals) and gfx::calculate_indices (merging within a window).
// Both give exactly what the engine's loops give, to the bit and to the index (the loops are kept
// as `*_by_scan` for the tests and for the inputs an index cannot take).
#include <cstdint>
#include <span>
#include <vector>

#include <glm/vec3.hpp>

#include "formats/t3d/t3d.hpp"

namespace sceneria::t3d {

// Each vertex's normal from the face normals of the faces sharing its position and a smoothing
// bit. `from[i]` (in and out) is the vertex whose normal vertex i copies, -1 for none yet (an
// explicit normal points at itself); `masks[f]` is face f's smoothing mask.
void smooth_normals(std::span<Vertex> v, std::span<const std::uint32_t> masks, std::span<std::int64_t> from);
void smooth_normals_by_scan(std::span<Vertex> v, std::span<const std::uint32_t> masks, std::span<std::int64_t> from);

// Each vertex not yet merged takes the next index and claims the vertices among the next 999
// whose position, normal and uv are each within `tolerance` (the last claim wins). `v` becomes
// the merged vertices in first-use order; the result is one index per input vertex.
std::vector<std::uint32_t> merge_vertices(std::vector<Vertex>& v, float tolerance);
std::vector<std::uint32_t> merge_vertices_by_scan(std::vector<Vertex>& v, float tolerance);

}  // namespace sceneria::t3d
