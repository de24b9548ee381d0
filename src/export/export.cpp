#include "export/export.hpp"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

// stb_image_write: the well-kept PNG encoder beside the decoder the textures use; memory only.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif
#include <stb/stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include "core/text.hpp"

namespace sceneria::exports {

const char* const kParams =
    "instancing=true|false lines=lines|ribbons|none recentre=auto|true|false "
    "area=x,z,radius|x0,y0,z0,x1,y1,z1 extras=true|false textures=true|false";

namespace {

Error bad(std::string what) { return Error{Errc::bad_value, 0, std::move(what)}; }

std::optional<bool> flag(const std::string& v) {
  if (v == "true" || v == "1" || v == "yes" || v == "on") return true;
  if (v == "false" || v == "0" || v == "no" || v == "off") return false;
  return std::nullopt;
}

// Comma-separated finite numbers (the locale-free parse the rest of the core uses).
std::optional<std::vector<double>> numbers(const std::string& v) {
  std::vector<double> out;
  std::size_t at = 0;
  while (at <= v.size()) {
    const std::size_t end = std::min(v.find(',', at), v.size());
    std::string item(v, at, end - at);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    char* stop = nullptr;
    const double d = std::strtod(item.c_str(), &stop);
    if (item.empty() || stop != item.c_str() + item.size() || !std::isfinite(d)) return std::nullopt;
    out.push_back(d);
    at = end + 1;
  }
  return out;
}

}  // namespace

Result<Options> parse_options(const std::map<std::string, std::string>& params) {
  Options o;
  for (const auto& [key, value] : params) {
    if (key == "instancing" || key == "extras" || key == "textures") {
      const auto f = flag(value);
      if (!f) return bad(fmt::format("option {}: '{}' is not true or false", key, value));
      (key == "instancing" ? o.instancing : key == "extras" ? o.extras : o.textures) = *f;
    } else if (key == "lines") {
      if (value == "lines") o.lines = Lines::lines;
      else if (value == "ribbons") o.lines = Lines::ribbons;
      else if (value == "none") o.lines = Lines::none;
      else return bad(fmt::format("option lines: '{}' is not lines, ribbons or none", value));
    } else if (key == "recentre" || key == "recenter") {
      if (value == "auto") o.recentre.reset();
      else if (const auto f = flag(value)) o.recentre = *f;
      else return bad(fmt::format("option recentre: '{}' is not auto, true or false", value));
    } else if (key == "area") {
      const auto n = numbers(value);
      if (n && n->size() == 3 && (*n)[2] > 0) {
        o.area.kind = Area::Kind::circle, o.area.centre = {(*n)[0], (*n)[1]}, o.area.radius = (*n)[2];
      } else if (n && n->size() == 6) {
        o.area.kind = Area::Kind::box;
        o.area.min = glm::min(glm::dvec3((*n)[0], (*n)[1], (*n)[2]), glm::dvec3((*n)[3], (*n)[4], (*n)[5]));
        o.area.max = glm::max(glm::dvec3((*n)[0], (*n)[1], (*n)[2]), glm::dvec3((*n)[3], (*n)[4], (*n)[5]));
      } else {
        return bad(fmt::format("option area: '{}' is neither x,z,radius (radius > 0) nor x0,y0,z0,x1,y1,z1", value));
      }
    } else {
      return bad(fmt::format("unknown option '{}' (the scene exports take {})", key, kParams));
    }
  }
  return o;
}

bool reaches(const Bounds& bounds, const Area& area) {
  const auto& [lo, hi] = bounds;
  if (area.kind == Area::Kind::circle) {
    // The bounds' nearest point on the ground to the centre.
    const double x = std::clamp(area.centre.x, lo.x, hi.x), z = std::clamp(area.centre.y, lo.z, hi.z);
    return std::hypot(x - area.centre.x, z - area.centre.y) <= area.radius;
  }
  if (area.kind == Area::Kind::box) return glm::all(glm::lessThanEqual(lo, area.max)) && glm::all(glm::greaterThanEqual(hi, area.min));
  return true;
}

std::vector<std::size_t> sections_in(const scene::Scene& scene, const Area& area) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < scene.sections.size(); ++i) {
    const scene::Section& s = scene.sections[i];
    if (reaches({s.origin + glm::dvec3(s.bounds_min), s.origin + glm::dvec3(s.bounds_max)}, area)) out.push_back(i);
  }
  return out;
}

glm::dvec3 offset_for(const std::vector<Bounds>& parts, const Options& options) {
  if (parts.empty() || options.recentre == false) return glm::dvec3(0.0);
  glm::dvec3 lo(INFINITY), hi(-INFINITY);
  for (const auto& [part_lo, part_hi] : parts) {
    lo = glm::min(lo, part_lo);
    hi = glm::max(hi, part_hi);
  }
  const auto finite = [](const glm::dvec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); };
  if (!finite(lo) || !finite(hi)) return glm::dvec3(0.0);
  const double reach = std::max(glm::length(lo), glm::length(hi));
  if (!options.recentre && reach <= kRecentreBeyond) return glm::dvec3(0.0);
  // Whole metres on the ground, none in height: an offset a user can type back in, and heights
  // that stay heights.
  const glm::dvec3 middle = (lo + hi) * 0.5;
  return {std::round(middle.x), 0.0, std::round(middle.z)};
}

std::vector<std::uint8_t> texture_rgba(const scene::Texture& t) {
  if (t.levels.empty() || t.width == 0 || t.height == 0) return {};
  if (t.format == scene::Texture::Format::rgba8)
    return t.levels[0].size() == std::size_t{t.width} * t.height * 4 ? t.levels[0] : std::vector<std::uint8_t>{};
  if (t.format == scene::Texture::Format::none) return {};
  return scene::decode_blocks(t.format, t.width, t.height, t.levels[0]);
}

namespace {
void append_to(void* context, void* data, int size) {
  auto* o = static_cast<std::vector<std::uint8_t>*>(context);
  const auto* p = static_cast<const std::uint8_t*>(data);
  o->insert(o->end(), p, p + size);
}
}  // namespace

std::vector<std::uint8_t> png(const std::vector<std::uint8_t>& rgba, std::uint32_t width, std::uint32_t height) {
  std::vector<std::uint8_t> out;
  if (rgba.size() != std::size_t{width} * height * 4 || width == 0 || height == 0) return out;
  stbi_write_png_to_func(append_to, &out, static_cast<int>(width), static_cast<int>(height), 4, rgba.data(),
                         static_cast<int>(width * 4));
  return out;
}

std::vector<std::uint8_t> tga(const std::vector<std::uint8_t>& rgba, std::uint32_t width, std::uint32_t height) {
  std::vector<std::uint8_t> out;
  if (rgba.size() != std::size_t{width} * height * 4 || width == 0 || height == 0) return out;
  // stb writes run-length encoded TGAs unless told otherwise, through a global: set it for every
  // call (the only writer of it here), as the uncompressed kind is what the game folders hold.
  stbi_write_tga_with_rle = 0;
  stbi_write_tga_to_func(append_to, &out, static_cast<int>(width), static_cast<int>(height), 4, rgba.data());
  return out;
}

std::string stem(const std::string& name) {
  std::string base = name.substr(name.find_last_of("/\\") == std::string::npos ? 0 : name.find_last_of("/\\") + 1);
  if (const auto dot = base.rfind('.'); dot != std::string::npos && dot > 0) base.resize(dot);
  return base.empty() ? "scene" : base;
}

std::string file_safe(std::string_view text) {
  std::string out;
  for (char c : text) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return out;
}

std::string file_stem(const std::string& name) { return file_safe(stem(name)); }

}  // namespace sceneria::exports
