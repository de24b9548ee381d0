// The scenery twin against the reference baker's files: bake byte for byte, read → write byte for
// byte, twin → text → twin, token streams from text and twin equal, and what the reference
// reader printed for every entry.
#include <gtest/gtest.h>

#include <limits>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "formats/scenery/bake.hpp"
#include "formats/scenery/decompile.hpp"
#include "formats/scenery/tokens.hpp"
#include "formats/scenery/twin.hpp"
#include "sample_files.hpp"

namespace sceneria::scenery {
namespace {

std::span<const std::uint8_t> bytes_of(const std::string& s) { return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}; }

// Where two byte strings first differ, with the twin entry there.
std::string first_difference(const std::vector<std::uint8_t>& ours, const std::vector<std::uint8_t>& theirs, const Twin& reference) {
  std::size_t i = 0;
  while (i < ours.size() && i < theirs.size() && ours[i] == theirs[i]) ++i;
  if (i == ours.size() && i == theirs.size()) return "identical";
  std::string where = i < reference.entries_offset ? "header or string table" : "entries";
  for (const TwinEntry& e : reference.entries)
    if (e.offset <= i) where = fmt::format("entry at {:#x} ({})", e.offset, tag_name(e.tag));
  for (const TwinMarker& m : reference.markers)
    if (m.offset <= i && i < m.body_offset) where = fmt::format("node marker at {:#x}", m.offset);
  return fmt::format("first difference at {:#x} ({} vs {} bytes), in {}", i, ours.size(), theirs.size(), where);
}

struct Pair {
  const char* text;
  const char* twin;
};
constexpr Pair kPairs[] = {{"TD.scn", "TD.scnb"}, {"tree.inc", "tree.incb"}, {"trees.scm", "trees.scmb"}};

TEST(SceneryTwin, BakesTheReferenceTwinsByteForByte) {
  SCENERIA_REQUIRE_SAMPLES();
  for (const Pair& p : kPairs) {
    const auto text = test::read_file(test::samples_dir() / "maszyna/text" / p.text);
    const auto reference = test::read_file(test::samples_dir() / "maszyna/twin" / p.twin);
    const auto parsed = read_twin(reference);
    ASSERT_TRUE(parsed.ok()) << p.twin << ": " << parsed.error().describe();
    const auto ours = bake_bytes(text, kind_for(p.text));
    EXPECT_EQ(ours == reference, true) << p.text << ": " << first_difference(ours, reference, parsed.value());
    EXPECT_EQ(twin_name(p.text), p.twin);
  }
}

TEST(SceneryTwin, ReadWriteIsByteIdentical) {
  SCENERIA_REQUIRE_SAMPLES();
  for (const Pair& p : kPairs) {
    const auto reference = test::read_file(test::samples_dir() / "maszyna/twin" / p.twin);
    const auto t = read_twin(reference);
    ASSERT_TRUE(t.ok()) << t.error().describe();
    EXPECT_TRUE(write_twin(t.value()) == reference) << p.twin;
  }
}

// The reference reader's listing: header facts, then one line per entry (numbers with '#').
TEST(SceneryTwin, EntriesMatchTheReferenceDecode) {
  SCENERIA_REQUIRE_SAMPLES();
  for (const Pair& p : kPairs) {
    const auto bytes = test::read_file(test::samples_dir() / "maszyna/twin" / p.twin);
    const Twin t = read_twin(bytes).value();
    std::ifstream in(test::samples_dir() / "maszyna/twin" / (std::string(p.twin) + ".reference-decode.txt"), std::ios::binary);
    std::string line;
    std::vector<std::string> lines;
    bool entries = false;
    std::size_t tokens = 0, numbers = 0, includes = 0, qtokens = 0;
    while (std::getline(in, line)) {
      if (entries) lines.push_back(line);
      else if (line == "--- entries ---") entries = true;
      else if (line.rfind("entries: ", 0) == 0) {
        std::size_t n = 0;
        ASSERT_EQ(std::sscanf(line.c_str(), "entries: %zu tokens=%zu qtokens=%zu numbers=%zu includes=%zu", &n, &tokens, &qtokens, &numbers, &includes), 5);
        EXPECT_EQ(t.entries.size(), n) << p.twin;
      } else if (line.rfind("kind: ", 0) == 0) {
        EXPECT_EQ(static_cast<int>(t.kind), line[6] - '0') << p.twin;
      } else if (line.rfind("infra_relevant: ", 0) == 0) {
        EXPECT_EQ(t.infra_relevant(), line[16] == '1') << p.twin;
      }
    }
    ASSERT_EQ(lines.size(), t.entries.size()) << p.twin;
    std::size_t counted[7] = {};
    for (std::size_t i = 0; i < t.entries.size(); ++i) {
      const TwinEntry& e = t.entries[i];
      ++counted[static_cast<int>(e.tag)];
      std::string ours;
      if (e.is_number()) {
        ours = fmt::format("#{:.17g}", e.number);  // the reference printed %.17g
      } else if (e.tag == EntryTag::include) {
        ours = "INCLUDE fileexpr=[";
        for (std::uint32_t k = 0; k < e.files; ++k) ours += fmt::format("{} ", t.include_string(e, k));
        ours += "] params=[";
        for (std::uint32_t k = 0; k < e.params; ++k) ours += fmt::format("{} ", t.include_string(e, e.files + k));
        ours += "]";
      } else {
        ours = std::string(t.text(e));
      }
      ASSERT_EQ(ours, lines[i]) << p.twin << " entry " << i << " at offset " << e.offset;
    }
    EXPECT_EQ(counted[0], tokens);
    EXPECT_EQ(counted[5], qtokens);
    EXPECT_EQ(counted[1], includes);
    EXPECT_EQ(counted[2] + counted[3] + counted[4], numbers);
  }
}

// Twin → text → twin gives the same twin, and the text and the twin give the same tokens.
TEST(SceneryTwin, DecompiledTextBakesBackToTheSameTwin) {
  SCENERIA_REQUIRE_SAMPLES();
  for (const Pair& p : kPairs) {
    const auto reference = test::read_file(test::samples_dir() / "maszyna/twin" / p.twin);
    const Twin t = read_twin(reference).value();
    const std::string text = decompile(t);
    const auto again = write_twin(bake(bytes_of(text), t.kind));
    EXPECT_TRUE(again == reference) << p.twin << ": " << first_difference(again, reference, t);
  }
}

bool same_token(const Token& a, const Token& b) {
  if (a.kind != b.kind || a.in_include != b.in_include) return false;
  return a.kind == TokenKind::number ? stored_value(a.value, a.encoding) == b.value && a.encoding == b.encoding : a.text == b.text;
}

TEST(SceneryTwin, TextAndTwinGiveTheSameTokens) {
  SCENERIA_REQUIRE_SAMPLES();
  for (const Pair& p : kPairs) {
    const auto text = test::read_file(test::samples_dir() / "maszyna/text" / p.text);
    const Twin t = read_twin(test::read_file(test::samples_dir() / "maszyna/twin" / p.twin)).value();
    TextTokenSource a(text);
    TwinTokenSource b(t);
    Token x, y;
    std::size_t n = 0;
    for (;; ++n) {
      const bool more_a = a.next(x), more_b = b.next(y);
      ASSERT_EQ(more_a, more_b) << p.text << " token " << n;
      if (!more_a) break;
      std::string tx(x.text);
      ASSERT_TRUE(same_token(x, y)) << p.text << " token " << n << " line " << x.line << ": text '" << tx << "' twin '" << y.text << "'";
    }
    EXPECT_GT(n, 50u);
  }
}

TEST(SceneryTokenizer, FollowsTheEngineRules) {
  const std::string text = "\xEF\xBB\xBFnode abc//comment\ndef/*x\ny*/ghi ab\"c d\"e \"\" 1,2 -926.326000.2;x";
  TextTokenizer tok(bytes_of(text));
  std::vector<std::string> got;
  std::vector<bool> quoted;
  TextToken t;
  while (tok.next(t)) {
    got.emplace_back(t.text);
    quoted.push_back(t.quoted);
  }
  // `""` yields no token of its own but makes the next one quoted, as the engine's flag does.
  EXPECT_EQ(got, (std::vector<std::string>{"node", "abc", "def", "ghi", "abc de", "1,2", "-926.326000.2", "x"}));
  EXPECT_EQ(quoted, (std::vector<bool>{false, false, false, false, true, true, false, false}));
  TextTokenizer legacy(bytes_of(std::string("1,2,3")), {.legacy_comma = true});
  int n = 0;
  while (legacy.next(t)) ++n;
  EXPECT_EQ(n, 3);
}

TEST(SceneryTokenizer, NumbersFollowFromChars) {
  double v = 0;
  for (const char* yes : {".5", "5.", "1e3", "-0", "007", "1.435", "-1e-3", "0e999", "0.000e-5", "1E+2"}) EXPECT_TRUE(parse_number(yes, v)) << yes;
  for (const char* no : {"+5", "-+5", "1,2", "0,0,(p7)", "(p3)", "inf", "-infinity", "nan", "NaN", "12abc", "1.2.3", "-926.326000.2",
                         "0x10", "-", ".", "e5", "1e", "1e+", "1e400", "-1e400", "1e-400", "0.0001e-320", " 1", "1 "})
    EXPECT_FALSE(parse_number(no, v)) << no;
  ASSERT_TRUE(parse_number("-926.326", v));
  EXPECT_EQ(v, -926.326);  // correctly rounded, as from_chars is
  ASSERT_TRUE(parse_number("1.7976931348623157e308", v));
  EXPECT_EQ(v, std::numeric_limits<double>::max());
  EXPECT_EQ(number_encoding(1.0), EntryTag::int_number);
  EXPECT_EQ(number_encoding(1.435), EntryTag::f32);
  EXPECT_EQ(number_encoding(0.1234567890123), EntryTag::f32);  // within 1e-6
  EXPECT_EQ(number_encoding(1.5e300), EntryTag::f64);
  EXPECT_EQ(number_encoding(1e-42), EntryTag::f64);  // a float denormal: too coarse
  EXPECT_EQ(leading_number("0,0,(p7)"), 0.0);
  EXPECT_EQ(leading_number("12abc"), 12.0);
}

// Include statements as the headless bake captures them.
TEST(SceneryTwin, IncludesKeepTheirParametersVerbatim) {
  const std::string text = "INCLUDE Tr\\ABC.Inc Zwr02 0.5 END End end\ninclude [ a.inc b.inc ] end\ninclude \"Q.inc\" x end\nnode";
  const Twin t = bake(bytes_of(text), TwinKind::scn);
  ASSERT_EQ(t.entries.size(), 4u);
  const TwinEntry& a = t.entries[0];
  ASSERT_EQ(a.tag, EntryTag::include);
  ASSERT_EQ(a.files, 1u);
  EXPECT_EQ(t.include_string(a, 0), "tr/abc.inc");
  ASSERT_EQ(a.params, 4u);
  EXPECT_EQ(t.include_string(a, 1), "Zwr02");
  EXPECT_EQ(t.include_string(a, 3), "END");  // only a lower-case `end` ends the parameters
  EXPECT_EQ(t.include_string(a, 4), "End");
  const TwinEntry& b = t.entries[1];  // no random sets in a bake: `[` is the name
  EXPECT_EQ(t.include_string(b, 0), "[");
  EXPECT_EQ(b.params, 3u);
  EXPECT_EQ(t.include_string(t.entries[2], 0), "Q.inc");  // quoted: case kept
  EXPECT_TRUE(t.infra_relevant());  // an include makes the file relevant to the infrastructure pass
  EXPECT_EQ(t.strings.front(), "tr/abc.inc");  // interned when the statement ends: name first
}

TEST(SceneryTwin, HostileTwinsAreRefusedWithALocation) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto reference = test::read_file(test::samples_dir() / "maszyna/twin/TD.scnb");
  for (std::size_t cut : {std::size_t{0}, std::size_t{5}, std::size_t{12}, reference.size() / 3, reference.size() - 1}) {
    const auto r = read_twin(std::span(reference).first(cut));
    if (cut == 0 || cut == 5) {
      EXPECT_FALSE(r.ok());
      continue;
    }
    // A cut in the middle of an entry or a node body is an error that says where.
    ASSERT_FALSE(r.ok()) << "cut to " << cut << " of " << reference.size() << " bytes";
    EXPECT_NE(r.error().message.find("at 0x"), std::string::npos) << r.error().message;
  }
  auto bad = reference;
  bad[9] = 0xFF;  // a string count far beyond the file
  bad[10] = 0xFF;
  bad[11] = 0x7F;
  const auto r = read_twin(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("claims"), std::string::npos) << r.error().message;
}

// A varint's tenth byte holds bit 63 alone. A reader that let it carry more dropped those bits,
// and the file wrote back to other bytes (the format fuzzer found one: a ten-byte integer ending
// in 0x60). The largest value still reads and writes back as it was.
TEST(SceneryTwin, VarintsPast64BitsAreRefused) {
  const auto twin_with_integer = [](std::initializer_list<std::uint8_t> varint) {
    std::vector<std::uint8_t> out;
    put_twin_header(out, kTwinVersion, TwinKind::inc, 0);
    append_varint(out, 0);                                           // no strings
    append_varint(out, static_cast<std::uint64_t>(EntryTag::int_number));  // at 0xa
    out.insert(out.end(), varint);                                   // at 0xb
    return out;
  };
  const auto largest = twin_with_integer({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01});
  const auto t = read_twin(largest);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->entries.size(), 1u);
  EXPECT_EQ(t->entries[0].integer, std::numeric_limits<std::int64_t>::min());  // zigzag of 2^64-1
  EXPECT_EQ(write_twin(*t), largest);
  for (std::uint8_t last : {std::uint8_t{0x02}, std::uint8_t{0x60}, std::uint8_t{0x7F}}) {
    const auto r = read_twin(twin_with_integer({0xE8, 0xF2, 0xFD, 0xFF, 0xC7, 0xBF, 0xB7, 0xAF, 0xA7, last}));
    ASSERT_FALSE(r.ok()) << "tenth byte " << int{last};
    EXPECT_EQ(r.error().offset, 0xbu);
    EXPECT_NE(r.error().message.find("integer at 0xb: a varint past 64 bits"), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace sceneria::scenery
