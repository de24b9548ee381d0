#pragma once
// What the renderer keeps on the GPU, held against a byte budget. Meshes and textures are
// uploaded when a frame first needs them; when room is wanted, the least recently drawn ones that
// the current frame does not need are let go. Their CPU copies stay in the scene, so they come
// back when the camera returns. GL-free: the policy is tested natively (tests/residency_test.cpp).
//
// An intrusive LRU list over caller-numbered items: touch, hold and release are O(1), and making
// room walks only the items it lets go (plus the one that stops it).
#include <cstdint>
#include <vector>

namespace sceneria {

class Residency {
 public:
  std::uint64_t budget() const { return budget_; }
  void set_budget(std::uint64_t bytes) { budget_ = bytes; }
  // Bytes outside the ledger that count against the budget all the same: what is never let go
  // (a section's static geometry, the per-frame instance buffer).
  void set_fixed(std::uint64_t bytes) { fixed_ = bytes; }
  std::uint64_t fixed() const { return fixed_; }
  std::uint64_t held_bytes() const { return held_bytes_; }
  std::uint64_t total() const { return held_bytes_ + fixed_; }
  std::uint64_t released() const { return released_; }  // items let go for room since clear()

  // A new frame: what the last one used may now be let go.
  void begin_frame() { ++frame_; }
  bool held(std::uint32_t item) const { return item < nodes_.size() && nodes_[item].held; }
  // A held item is used by this frame: it is not let go before the next begin_frame().
  void touch(std::uint32_t item);
  // Room for `bytes` more within the budget, made by letting go of the least recently used items
  // that this frame has not used; their numbers are appended to `let_go` (the caller frees them).
  // False, letting go of nothing, when even all of those would not make enough room.
  bool make_room(std::uint64_t bytes, std::vector<std::uint32_t>& let_go);
  // Back within the budget (it was lowered, or items grew): lets go of the least recently used
  // items this frame has not used until the total fits or none is left.
  void trim(std::vector<std::uint32_t>& let_go);
  // An item uploaded (used by this frame).
  void hold(std::uint32_t item, std::uint64_t bytes);
  // The caller freed a held item for its own reasons (its mesh was replaced); no-op if not held.
  void release(std::uint32_t item);
  void clear();

 private:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  struct Node {
    std::uint64_t bytes = 0, frame = 0;
    std::uint32_t prev = kNone, next = kNone;  // towards the most / least recently used
    bool held = false;
  };
  void unlink(std::uint32_t item);
  void push_front(std::uint32_t item);
  void let_go_of_tail(std::vector<std::uint32_t>& let_go);  // for room: listed, released, counted
  std::vector<Node> nodes_;
  std::uint32_t head_ = kNone, tail_ = kNone;  // most / least recently used
  std::uint64_t budget_ = 0, fixed_ = 0, held_bytes_ = 0, frame_ = 1, released_ = 0;
};

}  // namespace sceneria
