// pha-store-bench: builds a temporary run store (10,000 runs with summaries plus one run with
// a 1M-point metric) and prints the figures recorded in docs/performance.md: listing all runs
// with summaries, a downsampled read of the long metric, and batched write throughput.
//   pha-store-bench [--runs N] [--points N] [--repeats N] [--dir DIR] [--keep]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"
#include "store/run_writer.h"
#include "store/store.h"
#include "store/store_changes.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace ps = pha::store;

struct Args {
  int runs = 10000;
  long points = 1000000;
  int repeats = 21;
  std::string dir;
  bool keep = false;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw pha::core::Error(k, "needs a value");
      return argv[++i];
    };
    if (k == "--runs") a.runs = std::stoi(value());
    else if (k == "--points") a.points = std::stol(value());
    else if (k == "--repeats") a.repeats = std::stoi(value());
    else if (k == "--dir") a.dir = value();
    else if (k == "--keep") a.keep = true;
    else throw pha::core::Error(k, "unknown option (allowed: --runs, --points, --repeats, --dir, --keep)");
  }
  return a;
}

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct Stats {
  double median, min, max;
};

template <class F>
Stats time_it(int repeats, F&& f) {
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) {
    auto t0 = Clock::now();
    f();
    t.push_back(ms_since(t0));
  }
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], t.front(), t.back()};
}

void fill_runs(ps::Store& store, int n) {
  for (int i = 0; i < n; ++i) {
    ps::NewRun r;
    r.project = "bench";
    r.name = "run-" + std::to_string(i);
    r.variant = i % 2 ? "pha-hybrid" : "gss-only";
    r.config_json = R"({"model":{"layers":6,"width":256},"train":{"lr":0.001}})";
    r.n_params = 1000000 + i;
    r.device = "cpu";
    std::int64_t id = store.create_run(r);
    ps::RunWriter w(store, id);
    for (int s = 0; s < 10; ++s) {
      w.metric("train/loss", s * 100, s * 100 * 4096, s * 1000, 5.0 - 0.3 * s + 0.001 * i);
    }
    w.metric("val/loss", 900, 900 * 4096, 9000, 2.5 + 0.001 * i);
    w.finish(ps::RunStatus::Finished);
  }
}

// One long run written the way training writes: a point per step, flushed about once a second
// by the writer's timer. Returns its id.
std::int64_t write_long_run(ps::Store& store, long points) {
  std::int64_t id = store.create_run({"bench", "long", "pha-hybrid", "{}", "", 0, "cpu"});
  ps::RunWriter w(store, id);
  for (long s = 0; s < points; ++s) {
    double v = 4.0 * std::exp(-static_cast<double>(s) / 2e5) + 0.05 * std::sin(s * 0.01);
    w.metric("train/loss", s, s * 4096, s / 10, v);
  }
  w.finish(ps::RunStatus::Finished);
  return id;
}

}  // namespace

// The benchmark's measurements and its printed table, top to bottom.
int main(int argc, char** argv) {
  try {
    Args args = parse(argc, argv);
    std::string dir = args.dir;
    if (dir.empty()) {
      std::string tmpl = (std::filesystem::temp_directory_path() / "pha-store-bench-XXXXXX");
      if (!mkdtemp(tmpl.data())) throw pha::core::Error(tmpl, "cannot create a temporary directory");
      dir = tmpl;
    }
    const std::string path = dir + "/runs.sqlite";
    std::filesystem::remove(path);
    ps::Store store = ps::Store::open(path);

    auto t0 = Clock::now();
    fill_runs(store, args.runs);
    const double fill_ms = ms_since(t0);

    t0 = Clock::now();
    const std::int64_t long_id = write_long_run(store, args.points);
    const double write_ms = ms_since(t0);

    ps::RunListQuery q;
    q.summary_keys = {"train/loss", "val/loss"};
    std::size_t listed = 0;
    Stats list = time_it(args.repeats, [&] { listed = store.list_runs(q).size(); });
    std::size_t buckets = 0;
    Stats read = time_it(args.repeats, [&] {
      buckets = store.read_metric(long_id, "train/loss", 2000).size();
    });
    Stats read_tokens = time_it(args.repeats, [&] {
      store.read_metric(long_id, "train/loss", 2000, ps::XAxis::Tokens);
    });
    Stats full = time_it(3, [&] { store.read_metric_full(long_id, "train/loss"); });
    // The window's StoreWatcher (docs/gui.md, "One store, every view current"): its look every
    // 500 ms, and the signature read it does only when another connection committed.
    Stats version = time_it(args.repeats, [&] { ps::data_version(store); });
    std::size_t signed_runs = 0;
    Stats signatures = time_it(args.repeats, [&] { signed_runs = ps::run_signatures(store).size(); });
    Stats reopen = time_it(args.repeats, [&] {
      ps::Store other = ps::Store::open(path);
      listed = other.list_runs(q).size();
    });
    // Store::open runs PRAGMA quick_check first (OpenOptions::verify, docs/store.md): its cost
    // against an open that skips it.
    ps::OpenOptions unverified;
    unverified.verify = false;
    Stats open_verified = time_it(5, [&] { ps::Store other = ps::Store::open(path); });
    Stats open_unverified = time_it(5, [&] { ps::Store other = ps::Store::open(path, unverified); });
    const auto file_mb = static_cast<double>(std::filesystem::file_size(path)) / 1e6;

    std::printf("store: %s (%d runs + 1 run with %ld points; filled in %.0f ms)\n", path.c_str(),
                args.runs, args.points, fill_ms);
    std::printf("%-48s median %7.2f ms  (min %.2f, max %.2f; %d reps)\n",
                ("list " + std::to_string(listed) + " runs with 2 summaries").c_str(), list.median,
                list.min, list.max, args.repeats);
    std::printf("%-48s median %7.2f ms  (min %.2f, max %.2f)\n",
                "open a new connection + list", reopen.median, reopen.min, reopen.max);
    std::printf("%-48s median %7.3f ms  (min %.3f, max %.3f)\n", "PRAGMA data_version (the watcher's poll)",
                version.median, version.min, version.max);
    std::printf("%-48s median %7.2f ms  (min %.2f, max %.2f)\n",
                ("run signatures of " + std::to_string(signed_runs) + " runs (after a commit)").c_str(),
                signatures.median, signatures.min, signatures.max);
    std::printf("%-48s median %7.2f ms  (min %.2f, max %.2f; 5 reps)\n",
                ("open with PRAGMA quick_check (" + std::to_string(static_cast<int>(file_mb)) + " MB file)").c_str(),
                open_verified.median, open_verified.min, open_verified.max);
    std::printf("%-48s median %7.2f ms  (min %.2f, max %.2f; 5 reps)\n", "open without the check (verify = false)",
                open_unverified.median, open_unverified.min, open_unverified.max);
    std::printf("%-48s median %7.2f ms  (min %.2f, max %.2f)\n",
                ("read " + std::to_string(args.points) + " points -> " + std::to_string(buckets) +
                 " buckets (x = step)").c_str(),
                read.median, read.min, read.max);
    std::printf("%-48s median %7.2f ms  (min %.2f, max %.2f)\n", "same, x = tokens",
                read_tokens.median, read_tokens.min, read_tokens.max);
    std::printf("%-48s median %7.1f ms  (3 reps)\n",
                ("read_metric_full, " + std::to_string(args.points) + " points").c_str(),
                full.median);
    std::printf("%-48s %.0f ms = %.0f points/s\n",
                ("write " + std::to_string(args.points) + " points, ~1 s batched flushes").c_str(),
                write_ms, args.points / (write_ms / 1000.0));
    if (!args.keep && args.dir.empty()) std::filesystem::remove_all(dir);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pha-store-bench: %s\n", e.what());
    return 1;
  }
}
