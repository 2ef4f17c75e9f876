// The program stage's RecordStore (hhlo/program/record_store.h): records of their own in the
// compile cache's folder, checked on read, within the cache's size bound.
#include "hhlo/program/record_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "hhlo/core/error.h"
#include "hhlo/core/sha256.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;

struct Folder {
  explicit Folder(const std::string& name)
      : path((fs::temp_directory_path() / ("hhlo-records-" + name + "-" + std::to_string(getpid())))
                 .string()) {
    fs::remove_all(path);
  }
  ~Folder() { fs::remove_all(path); }
  std::string path;
};

const std::string kKey = sha256_hex("a record");
const std::string kOther = sha256_hex("another record");

TEST(RecordStore, WritesAndReadsItsOwnFilesBesideTheExecutables) {
  Folder dir("own");
  CompileCache cache({.dir = dir.path});
  RecordStore records(cache);
  EXPECT_FALSE(records.read(kKey).has_value());
  ASSERT_TRUE(records.write(kKey, R"({"x": 1})"));
  EXPECT_EQ(records.read(kKey), R"({"x": 1})");
  EXPECT_EQ(fs::path(records.path(kKey)).extension(), ".hrec");
  EXPECT_FALSE(cache.read(kKey).has_value());  // not an executable entry
  EXPECT_TRUE(records.remove(kKey));
  EXPECT_FALSE(records.remove(kKey));
}

TEST(RecordStore, ADamagedRecordIsRemovedAndReported) {
  Folder dir("damaged");
  RecordStore records(CompileCache({.dir = dir.path}));
  ASSERT_TRUE(records.write(kKey, "text"));
  {
    std::fstream f(records.path(kKey), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-1, std::ios::end);
    f.write("X", 1);  // the text no longer matches its digest
  }
  bool bad = false;
  EXPECT_FALSE(records.read(kKey, &bad).has_value());
  EXPECT_TRUE(bad);
  EXPECT_FALSE(fs::exists(records.path(kKey)));
}

TEST(RecordStore, ARecordRenamedUnderAnotherKeyIsNotRead) {
  Folder dir("renamed");
  RecordStore records(CompileCache({.dir = dir.path}));
  ASSERT_TRUE(records.write(kKey, "text"));
  fs::rename(records.path(kKey), records.path(kOther));
  bool bad = false;
  EXPECT_FALSE(records.read(kOther, &bad).has_value());
  EXPECT_TRUE(bad);
}

TEST(RecordStore, OffOrOverTheBoundKeepsNothing) {
  Folder dir("bound");
  RecordStore off(CompileCache({.dir = dir.path, .enabled = false}));
  EXPECT_FALSE(off.write(kKey, "text"));
  EXPECT_FALSE(off.read(kKey).has_value());
  RecordStore none(CompileCache({.dir = dir.path, .max_bytes = 0}));
  EXPECT_TRUE(none.write(kKey, "text"));  // written, then evicted by the bound of 0 bytes
  EXPECT_FALSE(none.read(kKey).has_value());
  RecordStore records(CompileCache({.dir = dir.path}));
  EXPECT_FALSE(records.write("not-a-key", "text"));
}

// map(): the payload read in place in parts (binary, three pages and more), its digest checked
// as it is consumed; a header of another form or key is refused at once.
TEST(RecordStore, ARecordIsMappedAndCheckedAsItIsConsumed) {
  Folder dir("mapped");
  RecordStore records(CompileCache({.dir = dir.path}));
  std::string payload(3 * 4096 + 123, '\0');
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 7 % 251);
  ASSERT_TRUE(records.write(kKey, payload));
  auto consume = [&](MappedRecord& m, std::size_t part) {
    std::string got;
    for (std::size_t at = 0; at < m.size(); at += part) got += m.next(part);
    return got;
  };
  for (std::size_t part : {std::size_t{1000}, std::size_t{5000}, payload.size()}) {
    std::optional<MappedRecord> m = records.map(kKey);
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->size(), payload.size());
    MappedRecord moved = std::move(*m);
    EXPECT_EQ(consume(moved, part), payload) << part;
    EXPECT_TRUE(moved.sound()) << part;
  }
  {
    std::optional<MappedRecord> m = records.map(kKey);
    ASSERT_TRUE(m.has_value());
    m->next(10);
    EXPECT_FALSE(m->sound());  // not all of it was read
  }
  EXPECT_FALSE(records.map(kOther).has_value());  // absent
  {
    std::fstream f(records.path(kKey), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-7, std::ios::end);
    f.write("X", 1);
  }
  std::optional<MappedRecord> damaged = records.map(kKey);
  ASSERT_TRUE(damaged.has_value());  // the header is whole: found when consumed
  EXPECT_EQ(consume(*damaged, 4096).size(), payload.size());
  EXPECT_FALSE(damaged->sound());
  // Written for another key, empty, short: refused at once, and removed.
  ASSERT_TRUE(records.write(kOther, payload));
  fs::rename(records.path(kOther), records.path(kKey));
  bool bad = false;
  EXPECT_FALSE(records.map(kKey, &bad).has_value());
  EXPECT_TRUE(bad);
  EXPECT_FALSE(fs::exists(records.path(kKey)));
  for (const char* text : {"", "hhlo-record 1 "}) {
    std::ofstream(records.path(kKey)) << text;
    bad = false;
    EXPECT_FALSE(records.map(kKey, &bad).has_value()) << text;
    EXPECT_TRUE(bad);
  }
}

}  // namespace
}  // namespace hhlo
