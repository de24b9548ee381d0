// Byte sources: a file gives exactly its bytes at any offset, refuses reads past its end, and where
// it shares its bytes (natively: a mapped file) they outlive the source, as a document opened from
// it relies on.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/byte_source.hpp"
#include "registry/registry.hpp"
#include "sample_files.hpp"

namespace sceneria {
namespace {

std::filesystem::path temp_file(const std::string& name, const std::vector<std::uint8_t>& bytes) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return path;
}

TEST(ByteSource, FileGivesItsBytesAtEveryOffsetAndRefusesReadsPastTheEnd) {
  std::vector<std::uint8_t> bytes(70000);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 131 + (i >> 8));
  const auto path = temp_file("sceneria_byte_source_test.bin", bytes);
  auto source = FileSource::open(path.string());
  ASSERT_TRUE(source.ok()) << source.error().describe();
  FileSource& s = **source;
  ASSERT_EQ(s.size(), bytes.size());
  for (const std::uint64_t at : {0ull, 1ull, 4095ull, 4096ull, 65535ull, 69990ull}) {
    std::vector<std::uint8_t> got(10);
    ASSERT_FALSE(s.read(at, got)) << at;
    EXPECT_TRUE(std::equal(got.begin(), got.end(), bytes.begin() + static_cast<std::ptrdiff_t>(at))) << at;
  }
  std::vector<std::uint8_t> past(11);
  const Error e = s.read(69990, past);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code, Errc::truncated);
  EXPECT_NE(e.message.find("sceneria_byte_source_test.bin"), std::string::npos) << e.message;

  // The whole file as shared bytes, still there once the source is gone.
  auto whole = read_shared(s);
  ASSERT_TRUE(whole.ok());
  source = Error{};
  ASSERT_EQ(whole->view.size(), bytes.size());
  EXPECT_TRUE(std::equal(whole->view.begin(), whole->view.end(), bytes.begin()));
#if defined(__unix__) && !defined(__EMSCRIPTEN__)
  EXPECT_TRUE(whole->owner) << "natively a regular file is mapped, not copied";
#endif
  std::filesystem::remove(path);
}

// A part of a mapped file is copied out of the file (pread), not out of the mapping: the same
// bytes at every offset of the part, after the source is gone too; a copy past the part's end is
// refused, and a file cut short after it was mapped gives an error where touching the mapping
// would kill the process.
TEST(ByteSource, MappedBytesAreCopiedFromTheFile) {
  std::vector<std::uint8_t> bytes(300000);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 29 + (i >> 9));
  const auto path = temp_file("sceneria_byte_source_copy.bin", bytes);
  auto source = FileSource::open(path.string());
  ASSERT_TRUE(source.ok()) << source.error().describe();
  auto mapped = (*source)->mapped();
#if defined(__unix__) && !defined(__EMSCRIPTEN__)
  ASSERT_TRUE(mapped);
  EXPECT_GE(mapped->file, 0) << "a mapped file keeps its descriptor for copies";
  const SharedBytes whole = *mapped;
#else
  EXPECT_FALSE(mapped) << "files are not mapped in this build";
  const SharedBytes whole = SharedBytes::own(bytes);  // bytes in memory are copied from memory
#endif
  const SharedBytes part = whole.part(5003, 250000);
  source = Error{};
  for (const std::size_t at : {std::size_t{0}, std::size_t{1}, std::size_t{4093}, std::size_t{131072}, std::size_t{249000}}) {
    std::vector<std::uint8_t> got(1000, 0xee);
    ASSERT_FALSE(part.copy(at, got)) << at;
    EXPECT_TRUE(std::equal(got.begin(), got.end(), bytes.begin() + static_cast<std::ptrdiff_t>(5003 + at))) << at;
    EXPECT_TRUE(std::equal(got.begin(), got.end(), part.view.begin() + static_cast<std::ptrdiff_t>(at))) << at;
  }
  std::vector<std::uint8_t> past(1001);
  const Error e = part.copy(249000, past);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code, Errc::truncated);
  std::filesystem::resize_file(path, 100000);
  std::vector<std::uint8_t> cut(2000);
  const Error gone = part.copy(94000, cut);  // file bytes 99003..101003
  if (part.file >= 0) {
    ASSERT_TRUE(gone);
    EXPECT_EQ(gone.code, Errc::io);
    EXPECT_NE(gone.message.find("the file ends there"), std::string::npos) << gone.message;
    EXPECT_EQ(gone.offset, 100000u);
  }
  std::filesystem::remove(path);
}

TEST(ByteSource, EmptyFileAndMemorySources) {
  const auto path = temp_file("sceneria_byte_source_empty.bin", {});
  auto source = FileSource::open(path.string());
  ASSERT_TRUE(source.ok());
  EXPECT_EQ((*source)->size(), 0u);
  auto whole = read_shared(**source);
  ASSERT_TRUE(whole.ok());
  EXPECT_TRUE(whole->view.empty());
  std::filesystem::remove(path);

  MemorySource owned(std::vector<std::uint8_t>{7, 8, 9}, "owned");
  auto shared = owned.shared();
  ASSERT_TRUE(shared);
  EXPECT_EQ(shared->view.data(), owned.bytes().data()) << "an owned buffer is shared, not copied";
  const std::vector<std::uint8_t> caller{1, 2};
  MemorySource borrowed(std::span<const std::uint8_t>(caller), "borrowed");
  EXPECT_FALSE(borrowed.shared()) << "the caller's bytes may not outlive the source";
  auto copied = read_shared(borrowed);
  ASSERT_TRUE(copied.ok());
  EXPECT_NE(copied->view.data(), caller.data());
  EXPECT_EQ(std::vector<std::uint8_t>(copied->view.begin(), copied->view.end()), caller);
}

// A scenery opened for conversion reads its text only when written (OpenOptions::deferred), long
// after the file source it came from is gone: it must still compile to the reference module.
TEST(ByteSource, DeferredSceneryOutlivesItsFileSource) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto text = test::samples_dir() / "maszyna/text/TD.scn";
  std::unique_ptr<Document> document;
  {
    auto source = FileSource::open(text.string());
    ASSERT_TRUE(source.ok());
    auto opened = open_document(**source, {.deferred = true});
    ASSERT_TRUE(opened.ok()) << opened.error().describe();
    document = std::move(opened).value();
  }
  const Format* format = find_format(document->format_id());
  ASSERT_NE(format, nullptr);
  const Writer* writer = format->writer_for("TD.eu7");
  ASSERT_NE(writer, nullptr);
  auto written = writer->write(*document, {});
  ASSERT_TRUE(written.ok()) << written.error().describe();
  EXPECT_EQ(*written, test::read_file(test::samples_dir() / "maszyna/eu7/TD.v6.eu7"));
}

}  // namespace
}  // namespace sceneria
