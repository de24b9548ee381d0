#include "render/residency.hpp"

namespace sceneria {

void Residency::unlink(std::uint32_t item) {
  Node& n = nodes_[item];
  if (n.prev != kNone) nodes_[n.prev].next = n.next;
  else head_ = n.next;
  if (n.next != kNone) nodes_[n.next].prev = n.prev;
  else tail_ = n.prev;
  n.prev = n.next = kNone;
}

void Residency::push_front(std::uint32_t item) {
  Node& n = nodes_[item];
  n.prev = kNone;
  n.next = head_;
  if (head_ != kNone) nodes_[head_].prev = item;
  head_ = item;
  if (tail_ == kNone) tail_ = item;
}

void Residency::touch(std::uint32_t item) {
  if (!held(item)) return;
  nodes_[item].frame = frame_;
  if (head_ == item) return;
  unlink(item);
  push_front(item);
}

bool Residency::make_room(std::uint64_t bytes, std::vector<std::uint32_t>& let_go) {
  if (bytes > budget_) return false;
  const std::uint64_t used = total();
  if (used + bytes <= budget_) return true;
  // Everything this frame touched is at the front: walk from the tail until an item of this frame.
  const std::uint64_t need = used + bytes - budget_;
  std::uint64_t freed = 0;
  std::uint32_t stop = tail_;
  while (stop != kNone && freed < need && nodes_[stop].frame != frame_) {
    freed += nodes_[stop].bytes;
    stop = nodes_[stop].prev;
  }
  if (freed < need) return false;
  while (tail_ != stop) let_go_of_tail(let_go);
  return true;
}

void Residency::trim(std::vector<std::uint32_t>& let_go) {
  while (tail_ != kNone && total() > budget_ && nodes_[tail_].frame != frame_) let_go_of_tail(let_go);
}

void Residency::let_go_of_tail(std::vector<std::uint32_t>& let_go) {
  let_go.push_back(tail_);
  release(tail_);
  ++released_;
}

void Residency::hold(std::uint32_t item, std::uint64_t bytes) {
  if (item >= nodes_.size()) nodes_.resize(std::size_t{item} + 1);
  if (nodes_[item].held) release(item);
  Node& n = nodes_[item];
  n.bytes = bytes;
  n.frame = frame_;
  n.held = true;
  held_bytes_ += bytes;
  push_front(item);
}

void Residency::release(std::uint32_t item) {
  if (!held(item)) return;
  unlink(item);
  Node& n = nodes_[item];
  held_bytes_ -= n.bytes;
  n.held = false;
  n.bytes = 0;
}

void Residency::clear() {
  nodes_.clear();
  head_ = tail_ = kNone;
  held_bytes_ = released_ = 0;
}

}  // namespace sceneria
