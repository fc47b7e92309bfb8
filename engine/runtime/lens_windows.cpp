// What the hybrid lens reads (lens_internal.h): windows of a text run's split or of a user's
// text with the copyable / novel classes, and a task run's held-out examples with the positions'
// roles (docs/lens.md, "Token classes").
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <string_view>

#include "core/error.h"
#include "data/batch.h"
#include "data/tasks/task.h"
#include "runtime/internal/lens_internal.h"

namespace pha::runtime::detail {

namespace {

// Length of the valid UTF-8 sequence starting at s[i], 0 when it is not one.
size_t utf8_length(const std::string& s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return 0;
  return n;
}

}  // namespace

std::string display_token(const std::string& bytes) {
  std::string out;
  for (size_t i = 0; i < bytes.size();) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c == '\n') out += "\\n", ++i;
    else if (c == '\t') out += "\\t", ++i;
    else if (c == '\r') out += "\\r", ++i;
    else if (c == '\\') out += "\\\\", ++i;
    else if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
      ++i;
    } else if (const size_t n = utf8_length(bytes, i); n > 0) {
      out.append(bytes, i, n);
      i += n;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
      ++i;
    }
  }
  return out;
}

std::vector<int8_t> copyable_classes(const std::vector<int32_t>& s, int n) {
  const int T = static_cast<int>(s.size()) - 1;
  std::vector<int8_t> out(static_cast<size_t>(std::max(T, 0)), 0);
  std::set<std::vector<int32_t>> seen;  // every k-gram (k <= n) ending at a position already passed
  auto gram = [&](int end, int k) { return std::vector<int32_t>(s.begin() + end - k + 1, s.begin() + end + 1); };
  for (int e = 0; e <= T; ++e) {
    const int k = std::min(n, e + 1);
    if (e >= 1) out[static_cast<size_t>(e - 1)] = seen.count(gram(e, k)) ? 1 : 0;
    for (int kk = 1; kk <= k; ++kk) seen.insert(gram(e, kk));
  }
  return out;
}

float half_life(const float* abs_k, int lags) {
  if (lags < 2) return std::numeric_limits<float>::infinity();
  float peak = 0;
  int peak_lag = 1;
  for (int t = 1; t < lags; ++t)
    if (abs_k[t] > peak) peak = abs_k[t], peak_lag = t;
  if (peak <= 0) return 0.0f;
  // the last lag above half the peak; the kernel stays at or below it after that
  int last = 0;
  for (int t = lags - 1; t >= 1; --t)
    if (abs_k[t] > 0.5f * peak) {
      last = t;
      break;
    }
  if (last == lags - 1) return std::numeric_limits<float>::infinity();
  return static_cast<float>(last + 1 - peak_lag);
}

LensWindows text_windows(const JobData& data, const LensSource& src, int T) {
  const data::TextDataset& text = data.text();
  const data::Tokenizer& tok = text.tokenizer();
  std::vector<int32_t> ids;
  std::string what;
  if (!src.text.empty()) {
    ids = tok.encode(src.text);
    if (ids.size() < 2) throw core::Error("--text", "the text is shorter than two tokens; there is nothing to predict");
    what = "text";
  } else {
    if (src.split != "valid" && src.split != "test")
      throw core::Error("--split", "must be \"valid\" or \"test\" for a text run, got \"" + src.split + "\"");
    const data::TokenArray& split = text.tokens(src.split == "valid" ? data::Split::Valid : data::Split::Test);
    if (split.size() < 2) throw core::Error("--split", "the " + src.split + " split of the run's data is empty");
    if (static_cast<size_t>(src.offset) + 2 > split.size())
      throw core::Error("--offset", "the " + src.split + " split has " + std::to_string(split.size()) + " tokens; offset " +
                                  std::to_string(src.offset) + " leaves nothing to predict");
    const size_t want = src.tokens > 0 ? static_cast<size_t>(src.tokens) + 1 : split.size();
    const size_t n = std::min(want, split.size() - static_cast<size_t>(src.offset));
    ids.resize(n);
    split.copy(static_cast<size_t>(src.offset), n, ids.data());
    what = src.split;
  }
  if (!src.text.empty() && src.tokens > 0 && ids.size() > static_cast<size_t>(src.tokens) + 1)
    ids.resize(static_cast<size_t>(src.tokens) + 1);
  const int n_gram = src.ngram > 0 ? src.ngram : tok.describe().value("kind", std::string()) == "byte" ? 4 : 2;
  if (src.ngram < 0 || src.ngram > 64) throw core::Error("--ngram", "must be between 1 and 64 (0: the default)");
  const size_t predicted = ids.size() - 1;
  LensWindows w;
  w.T = T;
  w.B = static_cast<int>((predicted + static_cast<size_t>(T) - 1) / static_cast<size_t>(T));
  const size_t total = static_cast<size_t>(w.B) * static_cast<size_t>(T);
  w.inputs.assign(total, 0);
  w.targets.assign(total, data::kIgnore);
  w.input_text.assign(total, "");
  w.target_text.assign(total, "");
  w.cls.assign(total, -1);
  w.scored.assign(total, 0);
  w.class_names = {"copyable", "novel"};
  for (int b = 0; b < w.B; ++b) {
    const size_t s0 = static_cast<size_t>(b) * static_cast<size_t>(T);
    const size_t n = std::min(static_cast<size_t>(T), predicted - s0);
    std::vector<int32_t> seq(ids.begin() + static_cast<std::ptrdiff_t>(s0), ids.begin() + static_cast<std::ptrdiff_t>(s0 + n + 1));
    const std::vector<int8_t> copy = copyable_classes(seq, n_gram);
    for (size_t t = 0; t < n; ++t) {
      const size_t i = s0 + t;
      w.inputs[i] = seq[t];
      w.targets[i] = seq[t + 1];
      w.input_text[i] = display_token(tok.decode(&seq[t], 1));
      w.target_text[i] = display_token(tok.decode(&seq[t + 1], 1));
      w.cls[i] = copy[t] ? 0 : 1;
      w.scored[i] = 1;
    }
  }
  const std::string win = std::to_string(w.B) + (w.B == 1 ? " window of " : " windows of ") + std::to_string(T);
  if (what == "text")
    w.source = "text (" + std::to_string(predicted) + " tokens predicted, " + win + ")";
  else
    w.source = what + " tokens " + std::to_string(src.offset) + "-" + std::to_string(src.offset + static_cast<int64_t>(predicted)) +
               " (" + win + ")";
  w.source += ", copyable: " + std::to_string(n_gram) + "-gram seen earlier in the window";
  return w;
}

namespace {

const NamedTask& pick_set(const JobData& data, const std::string& name, int64_t run_id) {
  const auto& sets = data.test_tasks();
  if (sets.empty()) throw core::Error("--set", "run " + std::to_string(run_id) + " has no held-out set");
  if (name.empty() || name == "valid") return sets.front();
  std::string names;
  for (const auto& s : sets) {
    if (s.name == name) return s;
    names += (names.empty() ? "" : ", ") + s.name;
  }
  throw core::Error("--set", "run " + std::to_string(run_id) + " has no held-out set \"" + name + "\" (it has: " + names + ")");
}

}  // namespace

int task_seq_len(const JobData& data) {
  return data.test_tasks().empty() ? 0 : data.test_tasks().front().task->info().seq_len;
}

LensWindows task_windows(const JobData& data, const LensSource& src, int64_t run_id) {
  const NamedTask& set = pick_set(data, src.split, run_id);
  const data::TaskGenerator& task = *set.task;
  const data::TaskInfo& info = task.info();
  if (src.examples < 1) throw core::Error("--examples", "must be at least 1");
  const int64_t size = std::max<int64_t>(1, info.num_examples);
  if (src.offset >= size)
    throw core::Error("--offset", "the set \"" + set.name + "\" has " + std::to_string(size) + " examples");
  const int64_t n = std::min(src.examples, size - src.offset);
  const bool mqar = info.name == "mqar";
  const int kv = mqar ? task.params().value("num_kv_pairs", 0) : 0;
  LensWindows w;
  w.T = info.seq_len;
  w.B = static_cast<int>(n);
  w.class_names = mqar ? std::vector<std::string>{"key", "value", "query", "filler"}
                       : std::vector<std::string>{"answer", "other"};
  const size_t total = static_cast<size_t>(w.B) * static_cast<size_t>(w.T);
  w.inputs.assign(total, 0);
  w.targets.assign(total, data::kIgnore);
  w.input_text.assign(total, "");
  w.target_text.assign(total, "");
  w.cls.assign(total, -1);
  w.scored.assign(total, 0);
  for (int64_t e = 0; e < n; ++e) {
    const data::Sample s = task.sample(static_cast<uint64_t>(src.offset + e));
    for (int t = 0; t < w.T; ++t) {
      const size_t i = static_cast<size_t>(e) * static_cast<size_t>(w.T) + static_cast<size_t>(t);
      const bool answer = s.targets[static_cast<size_t>(t)] != data::kIgnore;
      w.inputs[i] = s.inputs[static_cast<size_t>(t)];
      // The task's own target where it counts one; elsewhere the next input token (what a
      // language model would predict there; the task never trained on it).
      w.targets[i] = answer ? s.targets[static_cast<size_t>(t)]
                            : t + 1 < w.T ? s.inputs[static_cast<size_t>(t) + 1] : data::kIgnore;
      w.input_text[i] = std::to_string(w.inputs[i]);
      w.scored[i] = answer ? 1 : 0;
      if (w.targets[i] != data::kIgnore) w.target_text[i] = std::to_string(w.targets[i]);
      if (w.targets[i] == data::kIgnore) continue;
      if (mqar)
        w.cls[i] = t < 2 * kv ? static_cast<int8_t>(t % 2) : answer ? 2 : 3;
      else
        w.cls[i] = answer ? 0 : 1;
    }
  }
  w.source = set.name + " examples " + std::to_string(src.offset) + "-" + std::to_string(src.offset + n - 1) + " (T " +
             std::to_string(w.T) + "; " + (mqar ? "MQAR roles key, value, query, filler" : "answer: the task's targets") +
             "; the overall figures are over the task's targets, the other positions predict the next input)";
  return w;
}

}  // namespace pha::runtime::detail
