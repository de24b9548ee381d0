#pragma once
// Where textures live on the GPU: layers of texture arrays, one array per shape (GPU format,
// size, mip levels), so that the parts of a mesh with different textures are drawn in one call
// (the shader picks the array by its texture unit and the layer by number). Arrays grow as
// textures come and are rebuilt to their size when textures leave, so that letting a texture go
// for the memory budget gives its bytes back. A few texture units hold arrays; an array made when
// all are taken has none until one frees, and its textures are drawn part by part meanwhile.
// GL-free: the renderer makes and fills the arrays this decides (tests/render_test.cpp).
#include <cstdint>
#include <vector>

namespace sceneria {

struct LayerShape {
  std::uint32_t format = 0, width = 0, height = 0, levels = 0;
  std::uint64_t bytes = 0;  // one layer, every level
  bool operator==(const LayerShape& o) const {
    return format == o.format && width == o.width && height == o.height && levels == o.levels;
  }
};

class TextureLayers {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  struct Array {
    LayerShape shape;
    std::vector<std::uint32_t> layers;  // the texture in each layer, kNone where free (size: capacity)
    std::uint32_t used = 0;
    int unit = 0;        // 1..units; 0: none was free
    bool live = false;
    unsigned gl = 0;     // the renderer's texture name
  };
  // A placement: `array` gets `capacity` layers first if that is more than it has (a new array
  // when it is kNone), then the texture goes into a free layer.
  struct Plan {
    std::uint32_t array = kNone;
    std::uint32_t capacity = 0;
    std::uint64_t bytes = 0;  // GPU bytes this adds
  };

  void reset(int units, std::uint32_t max_layers);
  // Cheapest first: a free layer; else an array of the shape grown (doubled, or by one layer
  // where `tight`), else a new array.
  Plan plan(const LayerShape& shape, bool tight) const;
  // Carries a plan out (a new array's number is written to it). `rebuilt` is set when the
  // array's storage is new (made or grown): the renderer makes it and uploads every texture it
  // holds. Returns the layer.
  std::uint32_t place(Plan& plan, const LayerShape& shape, std::uint32_t texture, bool& rebuilt);
  // The texture leaves its layer.
  void free(std::uint32_t array, std::uint32_t layer);
  // After textures left: arrays with free layers shrink to their textures (kept in order, from
  // layer 0), empty ones go, their units going to arrays without one. Returns the arrays to
  // rebuild (listed in `rebuilt`) and to delete (`deleted`, their GL names).
  void compact(std::vector<std::uint32_t>& rebuilt, std::vector<unsigned>& deleted);

  std::vector<Array>& arrays() { return arrays_; }
  const std::vector<Array>& arrays() const { return arrays_; }
  std::uint64_t bytes() const;  // every live array's storage
  std::uint64_t slack() const;  // of which free layers
  int units() const { return units_; }
  // Arrays on units past `units` lose them; arrays without one take those free.
  void set_units(int units);
  std::uint32_t max_layers() const { return max_layers_; }

 private:
  int take_unit() const;
  std::vector<Array> arrays_;
  int units_ = 0;
  std::uint32_t max_layers_ = 1;
};

}  // namespace sceneria
