// The GPU budget's ledger: what is let go, in which order, and what never is.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "render/residency.hpp"

namespace sceneria {
namespace {

TEST(Residency, LetsGoOfTheLeastRecentlyUsedFirst) {
  Residency r;
  r.set_budget(100);
  std::vector<std::uint32_t> gone;
  for (std::uint32_t i = 0; i < 4; ++i) {  // frames 1..4 use items 0..3, 25 bytes each
    r.begin_frame();
    ASSERT_TRUE(r.make_room(25, gone));
    r.hold(i, 25);
  }
  EXPECT_TRUE(gone.empty());
  EXPECT_EQ(r.held_bytes(), 100u);
  r.begin_frame();
  r.touch(0);  // item 0 drawn again: 1 is now the least recently used
  ASSERT_TRUE(r.make_room(30, gone));  // 30 more: two items must go
  EXPECT_EQ(gone, (std::vector<std::uint32_t>{1, 2}));
  EXPECT_FALSE(r.held(1));
  EXPECT_FALSE(r.held(2));
  EXPECT_TRUE(r.held(0));
  EXPECT_TRUE(r.held(3));
  r.hold(7, 30);
  EXPECT_EQ(r.held_bytes(), 80u);
  EXPECT_EQ(r.released(), 2u);
}

TEST(Residency, NeverLetsGoOfWhatThisFrameUses) {
  Residency r;
  r.set_budget(100);
  std::vector<std::uint32_t> gone;
  r.begin_frame();
  r.hold(0, 40);
  r.hold(1, 40);
  // Both are this frame's: there is no room for 40 more, and nothing is let go trying.
  EXPECT_FALSE(r.make_room(40, gone));
  EXPECT_TRUE(gone.empty());
  EXPECT_EQ(r.held_bytes(), 80u);
  r.begin_frame();
  r.touch(1);
  EXPECT_TRUE(r.make_room(40, gone));  // 0 was not used by this frame
  EXPECT_EQ(gone, std::vector<std::uint32_t>{0});
}

TEST(Residency, FixedBytesCountAndAnItemBiggerThanTheBudgetNeverFits) {
  Residency r;
  r.set_budget(100);
  r.set_fixed(70);
  std::vector<std::uint32_t> gone;
  r.begin_frame();
  EXPECT_TRUE(r.make_room(30, gone));
  EXPECT_FALSE(r.make_room(31, gone));  // nothing held to let go of: the fixed part stays
  EXPECT_FALSE(r.make_room(101, gone));
  r.hold(0, 30);
  EXPECT_EQ(r.total(), 100u);
  r.begin_frame();
  EXPECT_FALSE(r.make_room(31, gone));  // letting go of all 30 is not enough: nothing goes
  EXPECT_TRUE(r.held(0));
  EXPECT_TRUE(gone.empty());
}

TEST(Residency, ReleaseAndHoldAgainKeepTheBooks) {
  Residency r;
  r.set_budget(1000);
  r.begin_frame();
  r.hold(5, 100);
  r.hold(5, 60);  // uploaded again (a replaced mesh): counted once, at its new size
  EXPECT_EQ(r.held_bytes(), 60u);
  r.release(5);
  r.release(5);
  r.release(99);  // never held
  EXPECT_EQ(r.held_bytes(), 0u);
  EXPECT_FALSE(r.held(5));
  r.clear();
  EXPECT_EQ(r.total(), 0u);
}

TEST(Residency, TrimGoesBackWithinALoweredBudgetKeepingThisFrame) {
  Residency r;
  r.set_budget(1000);
  std::vector<std::uint32_t> gone;
  r.begin_frame();
  for (std::uint32_t i = 0; i < 5; ++i) r.hold(i, 100);  // 0 oldest ... 4 newest
  r.begin_frame();
  r.touch(0);
  r.set_budget(250);
  r.trim(gone);
  // 1, 2, 3 go (least recently used first); 0 is this frame's and stays, 4 fits beside it.
  EXPECT_EQ(gone, (std::vector<std::uint32_t>{1, 2, 3}));
  EXPECT_EQ(r.held_bytes(), 200u);
  r.set_budget(50);
  gone.clear();
  r.trim(gone);  // 4 goes; 0 stays although over: this frame draws it
  EXPECT_EQ(gone, std::vector<std::uint32_t>{4});
  EXPECT_TRUE(r.held(0));
}

// Against a plain model of the rule: random frames over 60 items under a tight budget. After each
// frame, what it uses is held, the total is within the budget, and what was let go was never
// more recently used than anything kept that this frame did not use.
TEST(Residency, RandomFramesAgreeWithAPlainModel) {
  std::mt19937 rng(36);
  Residency r;
  r.set_budget(2000);
  std::vector<std::uint64_t> size(60), last(60, 0);
  for (auto& s : size) s = 20 + rng() % 200;
  std::vector<std::uint32_t> gone;
  for (std::uint64_t frame = 1; frame <= 3000; ++frame) {
    r.begin_frame();
    std::vector<std::uint32_t> used;
    const std::uint32_t centre = static_cast<std::uint32_t>(rng() % 60), span = 1 + rng() % 8;
    for (std::uint32_t k = 0; k < span; ++k) used.push_back((centre + k) % 60);
    for (std::uint32_t i : used)
      if (r.held(i)) r.touch(i), last[i] = frame;
    for (std::uint32_t i : used) {
      if (r.held(i)) continue;
      gone.clear();
      const bool ok = r.make_room(size[i], gone);
      for (std::uint32_t g : gone) {
        EXPECT_LT(last[g], frame) << "let go of an item this frame uses";
        for (std::uint32_t k = 0; k < 60; ++k)
          if (r.held(k) && last[k] < frame) EXPECT_LE(last[g], last[k]) << "kept an older item";
      }
      if (ok) {
        r.hold(i, size[i]);
        last[i] = frame;
      }
      EXPECT_LE(r.total(), r.budget());
    }
    std::uint64_t sum = 0;
    for (std::uint32_t k = 0; k < 60; ++k) sum += r.held(k) ? size[k] : 0;
    ASSERT_EQ(sum, r.held_bytes());
  }
  EXPECT_GT(r.released(), 100u);
}

}  // namespace
}  // namespace sceneria
