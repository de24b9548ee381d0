// Section streaming decisions, span coalescing and Range response checks.
#include <gtest/gtest.h>

#include <set>

#include "stream/section_streamer.hpp"

namespace sceneria::stream {
namespace {

std::vector<SectionId> grid(int rows, int cols, int row0 = 240, int col0 = 240) {
  std::vector<SectionId> out;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) out.push_back({row0 + r, col0 + c});
  return out;
}

glm::dvec3 centre(SectionId id) { return {(id.col - 250) * 1000.0 + 500, 0, (id.row - 250) * 1000.0 + 500}; }

TEST(SectionStreamer, BootstrapIsTheRadiusThreeSquareNearestFirst) {
  SectionStreamer s(grid(40, 40));
  const auto boot = s.bootstrap(centre({255, 255}));
  EXPECT_EQ(boot.size(), 49u);
  EXPECT_EQ(boot.front(), (SectionId{255, 255}));
  for (SectionId id : boot) {
    EXPECT_LE(std::abs(id.row - 255), 3);
    EXPECT_LE(std::abs(id.col - 255), 3);
  }
}

TEST(SectionStreamer, RequestsNearestFirstWithinBudgetsAndAppliesOnePerFrame) {
  SectionStreamer s(grid(40, 40));
  std::vector<SectionId> cancel;
  const glm::dvec3 cam = centre({255, 255});
  // A cold start asks for the nearest section alone and waits for it: the first models come after
  // the header and one section, whatever the density of the ring around it.
  EXPECT_EQ(s.update(cam, cancel), (std::vector<SectionId>{{255, 255}}));
  EXPECT_TRUE(s.update(cam, cancel).empty());
  EXPECT_FALSE(s.near_loaded(cam));
  s.fetched({255, 255});
  EXPECT_TRUE(s.update(cam, cancel).empty());  // decoded is not enough: nothing else until it is applied
  EXPECT_EQ(s.apply_one(cam), (std::optional<SectionId>{{255, 255}}));
  auto req = s.update(cam, cancel);
  ASSERT_EQ(req.size(), 72u);  // max in flight
  for (std::size_t i = 0; i < 8; ++i) {  // the ring around it next
    EXPECT_LE(std::abs(req[i].row - 255), 1) << i;
    EXPECT_LE(std::abs(req[i].col - 255), 1) << i;
  }
  for (SectionId id : req) {  // all inside the stream radius of 9
    EXPECT_LE(std::abs(id.row - 255), 9);
    EXPECT_LE(std::abs(id.col - 255), 9);
  }
  EXPECT_TRUE(s.update(cam, cancel).empty());  // nothing more while 72 are in flight
  EXPECT_FALSE(s.near_loaded(cam));
  for (SectionId id : req) s.fetched(id);
  EXPECT_TRUE(s.near_loaded(cam));  // now reads may be merged
  EXPECT_EQ(s.ready(), 72u);
  EXPECT_TRUE(s.update(cam, cancel).empty());  // 72 decoded waiting > 36: backpressure
  auto next = s.apply_one(cam);
  ASSERT_TRUE(next);
  EXPECT_LE(std::abs(next->row - 255) + std::abs(next->col - 255), 1);  // nearest first, one per call
  EXPECT_EQ(s.resident(), 2u);
  EXPECT_EQ(s.state(*next), State::resident);
}

TEST(SectionStreamer, AHoldKeepsTheRingBackButNotTheFirstSectionOrTheCancels) {
  SectionStreamer s(grid(20, 20));
  std::vector<SectionId> cancel;
  const glm::dvec3 cam = centre({250, 250});
  s.hold(true);  // held from the start: the cold start's one section still comes
  EXPECT_EQ(s.update(cam, cancel), (std::vector<SectionId>{{250, 250}}));
  s.fetched({250, 250});
  ASSERT_TRUE(s.apply_one(cam));
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(s.update(cam, cancel).empty()) << "held: nothing around it";
  EXPECT_TRUE(s.held());
  s.hold(false);
  EXPECT_EQ(s.update(cam, cancel).size(), 72u);  // released: the ring, as without a hold
  // Held again while those are in flight: moving far away still cancels them.
  s.hold(true);
  EXPECT_TRUE(s.update(centre({265, 265}), cancel).empty());
  EXPECT_FALSE(cancel.empty());
  for (SectionId id : cancel) EXPECT_EQ(s.state(id), State::idle);
}

TEST(SectionStreamer, MovingCancelsWhatWasLeftBehindAndLooksAhead) {
  SectionStreamer s(grid(60, 60, 220, 220));
  std::vector<SectionId> cancel;
  auto req = s.update(centre({250, 230}), cancel);
  ASSERT_FALSE(req.empty());
  // Jump 25 km east: everything in flight around the old place is cancelled.
  auto more = s.update(centre({250, 240}), cancel);
  auto again = s.update(centre({250, 255}), cancel);
  EXPECT_FALSE(cancel.empty());
  for (SectionId id : cancel) EXPECT_GT(std::abs(id.col - 255), 9);
  for (SectionId id : more) s.fetched(id);   // late answers for cancelled requests are ignored
  for (SectionId id : again) s.fetched(id);
  // Keep heading east, a section per frame, fetching everything: the look-ahead reaches past the
  // radius on the east side only.
  for (int step = 0; step <= 70; ++step) {  // 7 km at 100 m per frame
    const glm::dvec3 cam = centre({250, 255}) + glm::dvec3(100.0 * step, 0, 0);
    for (SectionId id : s.update(cam, cancel)) s.fetched(id);
    while (s.apply_one(cam)) {
    }
    s.evict(cam);
  }
  EXPECT_NE(s.state({250, 262 + 9 + 4}), State::idle);  // 4 ahead beyond the radius
  EXPECT_EQ(s.state({250, 262 - 9 - 4}), State::idle);  // not behind
}

TEST(SectionStreamer, DecodedButUnappliedSectionsLeftBehindAreCancelledToo) {
  SectionStreamer s(grid(60, 60, 220, 220));
  std::vector<SectionId> cancel;
  auto req = s.update(centre({230, 230}), cancel);
  ASSERT_FALSE(req.empty());
  for (SectionId id : req) s.fetched(id);  // decoded, waiting to be applied
  s.update(centre({270, 270}), cancel);    // 40 km away
  EXPECT_EQ(cancel.size(), req.size());    // so their decoded data can be freed
  EXPECT_EQ(s.ready(), 0u);
}

TEST(SectionStreamer, ResidentSetStaysBoundedOnALongFlight) {
  SectionStreamer s(grid(10, 200, 245, 150));
  std::vector<SectionId> cancel;
  std::size_t max_resident = 0;
  for (int x = 150; x < 350; ++x) {  // 200 km east, one section per step
    const glm::dvec3 cam = centre({250, x});
    for (SectionId id : s.update(cam, cancel)) s.fetched(id);
    while (s.apply_one(cam)) {
    }
    s.evict(cam);
    max_resident = std::max(max_resident, s.resident());
  }
  // 10 rows x (2 * keep radius 11 + 1 columns, plus the 4 of look-ahead still wanted).
  EXPECT_LE(max_resident, 10u * (23u + 4u));
  EXPECT_GT(max_resident, 10u * 10u);
}

TEST(Coalesce, EachSectionAloneUntilTheNearestAreIn) {
  const std::vector<Span> spans = {{1000, 2000}, {0, 500}, {2100, 3000}};
  const auto alone = plan_reads(spans, false);
  ASSERT_EQ(alone.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(alone[i].parts, (std::vector<std::size_t>{i}));
  EXPECT_EQ(alone[0].span.begin, 1000u);  // in the order asked: nearest first
  EXPECT_EQ(plan_reads(spans, true).size(), 1u);
}

TEST(Coalesce, MergesSmallGapsUpToTheCap) {
  const std::vector<Span> spans = {{1000, 2000}, {0, 500}, {2100, 3000}, {200000, 201000}, {201000, 9000000}};
  const auto reads = coalesce(spans, 64 * 1024, 8 * 1024 * 1024);
  ASSERT_EQ(reads.size(), 3u);
  EXPECT_EQ(reads[0].span.begin, 0u);
  EXPECT_EQ(reads[0].span.end, 3000u);
  EXPECT_EQ(reads[0].parts, (std::vector<std::size_t>{1, 0, 2}));
  EXPECT_EQ(reads[1].parts, (std::vector<std::size_t>{3}));  // next one would exceed 8 MiB
  EXPECT_EQ(reads[2].parts, (std::vector<std::size_t>{4}));
}

}  // namespace
}  // namespace sceneria::stream
