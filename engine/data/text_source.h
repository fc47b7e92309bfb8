// Text corpora and their deterministic train/valid/test splits, described by the "data"
// config section:
//   {"kind": "wikitext" | "folder" | "file" | "gutenberg", "path": ..., "split": {...},
//    "tokenizer": {...}, "eot_between_files": true, "cache": true, "cache_dir": ...}
// Split rules (never random per run):
//   wikitext  wiki.train.raw / wiki.valid.raw / wiki.test.raw as published
//   files     named files go to valid / test ("valid_files", "test_files"), the rest to train
//   hash      each unit goes to valid if h < valid, to test if h < valid + test, else train,
//             h = FNV-1a-64(unit) mod 10^6 / 10^6; the unit is the file's relative path
//             ("unit": "file", folders) or a paragraph's content ("unit": "paragraph"; always
//             for a single file). Equal paragraphs land in the same split: no leakage.
// Files are read as UTF-8; stray non-UTF-8 bytes are taken as Latin-1 and counted per file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace pha::data {

enum class Split { Train = 0, Valid = 1, Test = 2 };
const char* split_name(Split s);
Split parse_split(const std::string& name, const std::string& where);

struct SplitConfig {
  std::string rule;                       // "wikitext" | "files" | "hash"
  double valid = 0.05, test = 0.05;       // hash rule
  std::string unit = "file";              // hash rule on folders: "file" | "paragraph"
  std::vector<std::string> valid_files, test_files;  // files rule (relative paths)
};

struct SourceConfig {
  std::string kind;             // wikitext | folder | file | gutenberg
  std::filesystem::path path;   // gutenberg: defaults to pha::gutenberg_dir()
  SplitConfig split;
  nlohmann::json tokenizer = {{"kind", "byte"}};
  bool eot_between_files = true;  // end-of-text id after each file (folder, gutenberg)
  bool cache = true;
  std::filesystem::path cache_dir;  // defaults to pha::cache_dir()

  // Reads the "data" section; errors name the field ("data.split.valid").
  static SourceConfig from_json(const nlohmann::json& section, const std::string& where = "data");
  nlohmann::json to_json() const;
};

struct SourceFile {
  std::filesystem::path path;
  std::string relative;     // path relative to the source root (the file name for "file")
  uintmax_t size = 0;
  int64_t mtime_ns = 0;
};

struct FileReadReport {
  std::string relative;
  size_t bytes = 0;
  size_t latin1_fallback = 0;  // bytes that were not UTF-8 (read as Latin-1)
};

class TextSource {
 public:
  // Lists the files and checks they exist and are not empty (core::Error naming the file).
  explicit TextSource(SourceConfig config);

  const SourceConfig& config() const { return config_; }
  const std::vector<SourceFile>& files() const { return files_; }

  // Corpus identity for cache keys: config, and every file's relative path, size and mtime.
  nlohmann::json identity() const;

  // Reads every file in order and hands out its text piece by piece with the split it belongs
  // to; end_of_file is true on a file's last piece. Concatenating all pieces of all splits in
  // call order gives back every file's decoded text exactly.
  using Sink = std::function<void(Split split, std::string_view text, bool end_of_file)>;
  std::vector<FileReadReport> read(const Sink& sink) const;

 private:
  Split split_of_file(const SourceFile& f) const;
  void emit_paragraphs(std::string_view text, const Sink& sink) const;
  SourceConfig config_;
  std::vector<SourceFile> files_;
};

// Splits text after each run of blank lines: every paragraph keeps its trailing newlines, so
// the paragraphs concatenate back to the text.
std::vector<std::string_view> split_paragraphs(std::string_view text);

// The hash rule's bucket of a unit, in [0, 1).
double split_bucket(std::string_view unit);

}  // namespace pha::data
