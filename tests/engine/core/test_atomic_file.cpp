// The one atomic file writer (core/atomic_file.h): a file is whole or absent, a writer dropped
// before commit() leaves the old file and no temporary one, and every failure names the path.
#include "core/atomic_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "core/error.h"

namespace fs = std::filesystem;

namespace {

class TempDir {
 public:
  TempDir() {
    static int n = 0;
    path_ = fs::temp_directory_path() / ("pha_test_atomic_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const fs::path& path() const { return path_; }
  size_t count() const { return static_cast<size_t>(std::distance(fs::directory_iterator(path_), {})); }

 private:
  fs::path path_;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The Error's where() when `f` throws core::Error; "(no error)" when it does not throw.
template <typename Fn>
std::string error_where(Fn&& f) {
  try {
    f();
  } catch (const pha::core::Error& e) {
    return e.where();
  }
  return "(no error)";
}

}  // namespace

TEST(AtomicFileWriter, WithoutCommitTheOldFileStaysAndNoTempRemains) {
  TempDir dir;
  const std::string path = dir.file("f.bin");
  pha::core::write_file_atomic(path, {"old contents"});
  {
    pha::core::AtomicFileWriter w(path);
    w.write("new", 3);
    EXPECT_TRUE(fs::exists(w.temp_path()));
    EXPECT_EQ(fs::path(w.temp_path()).parent_path(), dir.path()) << "beside the file: rename stays on one file system";
    EXPECT_EQ(read_text(path), "old contents");  // a crash here leaves the old file whole
  }
  EXPECT_EQ(read_text(path), "old contents");
  EXPECT_EQ(dir.count(), 1u);
  {
    pha::core::AtomicFileWriter w(path);
    w.write(std::string_view("new "));
    w.write("contents", 8);
    w.commit();
  }
  EXPECT_EQ(read_text(path), "new contents");
  EXPECT_EQ(dir.count(), 1u);
}

TEST(AtomicFileWriter, TwoWritersOfOnePathDoNotShareATemporaryFile) {
  TempDir dir;
  const std::string path = dir.file("f.txt");
  pha::core::AtomicFileWriter a(path), b(path);
  EXPECT_NE(a.temp_path(), b.temp_path());
  a.write(std::string_view("a"));
  b.write(std::string_view("b"));
  b.commit();
  a.commit();
  EXPECT_EQ(read_text(path), "a");  // the last commit wins, whole
  EXPECT_EQ(dir.count(), 1u);
}

TEST(AtomicFileWriter, FailuresNameThePath) {
  TempDir dir;
  const std::string missing = dir.file("no/such/dir/f.bin");
  EXPECT_EQ(error_where([&] { pha::core::AtomicFileWriter w(missing); }), missing);
  // rename over a folder fails: the target is named, the folder is untouched, no temporary stays.
  const std::string folder = dir.file("a-folder");
  fs::create_directories(folder + "/inside");
  EXPECT_EQ(error_where([&] { pha::core::write_file_atomic(folder, {"text"}); }), folder);
  EXPECT_TRUE(fs::is_directory(folder + "/inside"));
  EXPECT_EQ(dir.count(), 1u);
}

TEST(WriteFileAtomic, WritesThePartsWholeAndCreatesTheFolder) {
  TempDir dir;
  const std::string path = dir.file("sub/folder/out.csv");
  pha::core::write_file_atomic(path, {"a,b\n", "", "1,2\n"});
  EXPECT_EQ(read_text(path), "a,b\n1,2\n");
  pha::core::write_file_atomic(path, {"replaced\n"});
  EXPECT_EQ(read_text(path), "replaced\n");
  EXPECT_EQ(static_cast<size_t>(std::distance(fs::directory_iterator(dir.file("sub/folder")), {})), 1u);
}

TEST(WriteFileAtomic, AFolderThatCannotBeMadeNamesTheFile) {
  TempDir dir;
  pha::core::write_file_atomic(dir.file("plain"), {"a file, not a folder"});
  const std::string path = dir.file("plain/out.txt");
  EXPECT_EQ(error_where([&] { pha::core::write_file_atomic(path, {"text"}); }), path);
  EXPECT_EQ(dir.count(), 1u);
}

TEST(WriteFileAtomic, AnUnwritableFolderNamesTheFileAndLeavesItAbsent) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only folders";
  TempDir dir;
  fs::permissions(dir.path(), fs::perms::owner_read | fs::perms::owner_exec);
  const std::string path = dir.file("out.txt");
  EXPECT_EQ(error_where([&] { pha::core::write_file_atomic(path, {"text"}); }), path);
  fs::permissions(dir.path(), fs::perms::owner_all);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(dir.count(), 0u);
}
