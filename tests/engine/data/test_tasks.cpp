// Synthetic task generators: each sampled sequence obeys its task's definition (checked by an
// independent checker written from tasks-spec, not from the generator), same seed -> same
// data, exact parameters reported, bad configs rejected naming the field.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/error.h"
#include "data/internal/composition_tasks.h"
#include "data/tasks/task.h"

using pha::data::kIgnore;
using pha::data::make_task;
using pha::data::Sample;
using nlohmann::json;

namespace {

constexpr int kSamples = 1000;

// Runs `check` on kSamples sequences of the task; returns the counted targets seen.
template <class Check>
int64_t check_all(const json& config, Check check) {
  auto task = make_task(config);
  int64_t counted = 0;
  for (int i = 0; i < kSamples; ++i) {
    Sample s = task->sample(static_cast<uint64_t>(i));
    EXPECT_EQ(s.inputs.size(), static_cast<size_t>(task->info().seq_len));
    for (int32_t x : s.inputs) {
      EXPECT_GE(x, 0);
      EXPECT_LT(x, task->info().vocab_size);
    }
    for (int32_t y : s.targets) counted += y != kIgnore;
    check(s, *task);
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "first failing sample index " << i;
      break;
    }
  }
  return counted;
}

}  // namespace

TEST(Mqar, EachCountedTargetIsTheValuePairedEarlierWithTheQueriedKey) {
  const int T = 128, kv = 8, V = 8192;
  json cfg = {{"task", "mqar"}, {"seq_len", T}, {"num_kv_pairs", kv}, {"vocab_size", V}, {"seed", 3}};
  std::vector<int64_t> slot_hits((T - 2 * kv) / 2, 0);
  int64_t counted = check_all(cfg, [&](const Sample& s, const pha::data::TaskGenerator&) {
    std::map<int32_t, int32_t> kv_map;
    std::set<int32_t> values;
    for (int j = 0; j < kv; ++j) {
      int32_t k = s.inputs[2 * j], v = s.inputs[2 * j + 1];
      ASSERT_GE(k, 1);
      ASSERT_LT(k, V / 2);
      ASSERT_GE(v, V / 2);
      ASSERT_LT(v, V);
      ASSERT_TRUE(kv_map.emplace(k, v).second) << "keys must be distinct";
      ASSERT_TRUE(values.insert(v).second) << "values must be distinct";
      ASSERT_EQ(s.targets[2 * j], kIgnore);
      ASSERT_EQ(s.targets[2 * j + 1], kIgnore);
    }
    std::set<int32_t> queried;
    for (int t = 2 * kv; t < T; ++t) {
      if (s.targets[t] == kIgnore) continue;
      ASSERT_EQ((t - 2 * kv) % 2, 0) << "queries sit at even offsets after the context";
      auto it = kv_map.find(s.inputs[t]);
      ASSERT_NE(it, kv_map.end()) << "query at " << t << " is not a key of the context";
      ASSERT_EQ(s.targets[t], it->second);
      queried.insert(s.inputs[t]);
      ++slot_hits[static_cast<size_t>((t - 2 * kv) / 2)];
    }
    ASSERT_EQ(queried.size(), static_cast<size_t>(kv)) << "every key is queried once";
  });
  EXPECT_EQ(counted, int64_t{kSamples} * kv);
  // Power law with a = 0.01: p_i ~ i^-0.99, so the first slot is drawn far more often than the last.
  EXPECT_GT(slot_hits.front(), 3 * slot_hits.back());
}

TEST(Mqar, SetsFollowTheSpec) {
  auto train = pha::data::mqar_train_sets(7);
  auto test = pha::data::mqar_test_sets(7);
  ASSERT_EQ(train.size(), 5u);
  ASSERT_EQ(test.size(), 7u);
  EXPECT_EQ(train[0].config["num_examples"], 100000);
  EXPECT_EQ(train[4].config["num_kv_pairs"], 64);
  EXPECT_EQ(test[6].config["seq_len"], 1024);
  EXPECT_EQ(test[6].config["num_kv_pairs"], 256);
  for (const auto& s : test) {
    EXPECT_EQ(s.config["seed"], 17);
    EXPECT_EQ(make_task(s.config)->info().num_examples, 1000);
  }
}

TEST(Mqar, RejectsConfigsOutsideTheDefinition) {
  auto expect_field = [](json cfg, const std::string& field) {
    try {
      make_task(cfg);
      ADD_FAILURE() << "accepted " << cfg.dump();
    } catch (const pha::core::Error& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  expect_field({{"task", "mqar"}, {"seq_len", 63}}, "task.seq_len");
  expect_field({{"task", "mqar"}, {"seq_len", 64}, {"num_kv_pairs", 17}}, "task.num_kv_pairs");
  expect_field({{"task", "mqar"}, {"seq_len", 64}, {"vocab_size", 64}}, "task.vocab_size");
  expect_field({{"task", "mqar"}, {"seq_lenn", 64}}, "task.seq_lenn");
  expect_field({{"task", "nope"}}, "task.task");
  expect_field({{"task", "mqar"}, {"seed", "x"}}, "task.seed");
}

TEST(Tasks, SameSeedSameDataOtherSeedOtherData) {
  for (const auto& name : pha::data::task_names()) {
    json cfg = {{"task", name}, {"seed", 5}};
    auto a = make_task(cfg), b = make_task(cfg);
    cfg["seed"] = 6;
    auto c = make_task(cfg);
    bool differs = false;
    for (uint64_t i = 0; i < 20; ++i) {
      Sample sa = a->sample(i), sb = b->sample(i), sc = c->sample(i);
      EXPECT_EQ(sa.inputs, sb.inputs) << name;
      EXPECT_EQ(sa.targets, sb.targets) << name;
      differs = differs || sa.inputs != sc.inputs;
    }
    EXPECT_TRUE(differs) << name << ": seed has no effect";
    // The reported parameters rebuild the same generator.
    auto d = make_task(a->params());
    EXPECT_EQ(d->sample(3).inputs, a->sample(3).inputs) << name;
    EXPECT_EQ(a->params()["task"], name);
  }
}

TEST(MadRecall, RepeatedKeysRepeatTheirValueAndAreTheTargets) {
  for (bool noisy : {false, true}) {
    const int V = 16, T = 128;
    json cfg = {{"task", noisy ? "mad_noisy_recall" : "mad_in_context_recall"}, {"vocab_size", V}, {"seq_len", T}};
    int64_t noise_slots = 0;
    check_all(cfg, [&](const Sample& s, const pha::data::TaskGenerator&) {
      std::map<int32_t, int32_t> seen;
      for (int p = 0; p < T / 2; ++p) {
        int32_t k = s.inputs[2 * p], v = s.inputs[2 * p + 1];
        ASSERT_EQ(s.targets[2 * p + 1], kIgnore);
        if (k >= V) {  // noise slot: both tokens from the noise vocabulary, nothing counted
          ASSERT_TRUE(noisy);
          ASSERT_GE(v, V);
          ASSERT_EQ(s.targets[2 * p], kIgnore);
          ++noise_slots;
          continue;
        }
        ASSERT_LT(k, V / 2);
        ASSERT_GE(v, V / 2);
        ASSERT_LT(v, V);
        auto it = seen.find(k);
        if (it != seen.end()) {
          ASSERT_EQ(v, it->second) << "a repeated key must repeat its value";
          ASSERT_EQ(s.targets[2 * p], v);
        } else {
          ASSERT_EQ(s.targets[2 * p], kIgnore);
          seen[k] = v;
        }
        if (p == T / 2 - 1) {
          ASSERT_NE(it, seen.end()) << "the last key must have been seen before";
        }
      }
    });
    if (noisy) {
      EXPECT_NEAR(static_cast<double>(noise_slots) / (kSamples * (T / 2 - 1)), 0.2, 0.01);
    }
  }
}

TEST(MadFuzzyRecall, ValueTuplesFollowRepeatedKeyTuples) {
  const int V = 16;
  json cfg = {{"task", "mad_fuzzy_recall"}, {"vocab_size", V}, {"seq_len", 128}, {"key_len_min", 1}};
  int64_t counted = check_all(cfg, [&](const Sample& s, const pha::data::TaskGenerator& task) {
    size_t t = 0;
    while (t < s.inputs.size() && s.inputs[t] == V) ASSERT_EQ(s.targets[t++], kIgnore);
    std::map<std::vector<int32_t>, std::vector<int32_t>> table;
    std::vector<int32_t> last_key;
    while (t < s.inputs.size()) {
      std::vector<int32_t> k, v;
      size_t k0 = t;
      while (t < s.inputs.size() && s.inputs[t] < V / 2) k.push_back(s.inputs[t++]);
      size_t v0 = t;
      while (t < s.inputs.size() && s.inputs[t] >= V / 2 && s.inputs[t] < V) v.push_back(s.inputs[t++]);
      ASSERT_FALSE(k.empty());
      ASSERT_FALSE(v.empty());
      ASSERT_LE(k.size(), 3u);
      ASSERT_LE(v.size(), 3u);
      auto it = table.find(k);
      const bool repeat = it != table.end();
      if (repeat) ASSERT_EQ(v, it->second);
      else table[k] = v;
      // Causal targets: last key token -> v[0], v[i] -> v[i+1].
      for (size_t i = k0; i < v0; ++i) ASSERT_EQ(s.targets[i], (repeat && i + 1 == v0) ? v[0] : kIgnore);
      for (size_t i = v0; i < t; ++i) ASSERT_EQ(s.targets[i], (repeat && i + 1 < t) ? v[i - v0 + 1] : kIgnore);
      last_key = k;
      if (t == s.inputs.size()) {
        ASSERT_TRUE(repeat) << "the final key was seen before";
      }
    }
    (void)task;
  });
  EXPECT_GT(counted, 0);
}

TEST(MadSelectiveCopy, TargetsAreTheContentTokensInOrder) {
  for (const char* name : {"mad_selective_copy", "selective_copy"}) {
    json cfg = {{"task", name}};
    auto info = make_task(cfg)->info();
    const int32_t V = info.vocab_size, blank = V - 2, copy = V - 1;
    std::set<int> lengths;
    check_all(cfg, [&](const Sample& s, const pha::data::TaskGenerator& task) {
      const int T = task.info().seq_len;
      const int n = task.params()["num_tokens_to_copy"];
      ASSERT_EQ(s.inputs[T - n - 1], copy);
      std::vector<int32_t> content;
      int first_content = T;
      for (int t = 0; t < T - n - 1; ++t) {
        ASSERT_NE(s.inputs[t], copy);
        ASSERT_EQ(s.targets[t], kIgnore);
        if (s.inputs[t] != blank) {
          content.push_back(s.inputs[t]);
          first_content = std::min(first_content, t);
        }
      }
      ASSERT_EQ(content.size(), static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) {
        ASSERT_EQ(s.inputs[T - n + i], blank);
        ASSERT_EQ(s.targets[T - n + i], content[static_cast<size_t>(i)]);
      }
      lengths.insert(T - first_content);
    });
    if (std::string(name) == "selective_copy") {
      // Seed 2: lengths 20..50, so content never starts before position 0 and sometimes late.
      EXPECT_LE(*lengths.rbegin(), 50);
      EXPECT_LE(*lengths.begin(), 25);
    }
  }
}

TEST(OodBits, ContentIsBernoulliWithTheGivenP) {
  json cfg = {{"task", "selective_copy"}, {"bits_p", 0.5}};
  auto sets = pha::data::ood_bits_sets(cfg);
  ASSERT_EQ(sets.size(), 4u);
  for (const auto& set : sets) {
    const double p = set.config["bits_p"];
    int64_t ones = 0, total = 0;
    check_all(set.config, [&](const Sample& s, const pha::data::TaskGenerator& task) {
      const int T = task.info().seq_len, n = task.params()["num_tokens_to_copy"];
      for (int i = 0; i < n; ++i) {
        int32_t y = s.targets[T - n + i];
        ASSERT_TRUE(y == 0 || y == 1);
        ones += y;
        ++total;
      }
    });
    EXPECT_NEAR(static_cast<double>(ones) / static_cast<double>(total), p, 0.02) << set.name;
  }
  EXPECT_THROW(pha::data::ood_bits_sets({{"task", "needle"}}), pha::core::Error);
}

TEST(LengthGeneralization, SetsHaveTheSpecLengths) {
  auto sets = pha::data::length_generalization_sets({{"task", "selective_copy"}});
  std::vector<int> Ts;
  for (const auto& s : sets) {
    auto t = make_task(s.config);
    Ts.push_back(t->info().seq_len);
    EXPECT_EQ(t->params()["seq_len_min"], t->info().seq_len) << "evaluation lengths are fixed";
  }
  EXPECT_EQ(Ts, (std::vector<int>{50, 75, 100, 150, 200, 400}));
  for (const char* name : {"ar_decode", "mkar", "needle"})
    EXPECT_EQ(pha::data::length_generalization_sets({{"task", name}}).size(), 6u) << name;
}

// A causal LM would "solve" MAD compression by echoing its input (each target is the input at
// the same position), so the task is refused with the reason rather than offered as a test.
TEST(MadCompression, IsRefusedWithTheReason) {
  try {
    make_task({{"task", "mad_compression"}});
    ADD_FAILURE() << "mad_compression was made";
  } catch (const pha::core::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("task.task"), std::string::npos) << msg;
    EXPECT_NE(msg.find("\"mad_compression\" is not offered"), std::string::npos) << msg;
    EXPECT_NE(msg.find("encoder/decoder head"), std::string::npos) << msg;
    EXPECT_NE(msg.find("echoing"), std::string::npos) << msg;
  }
  const auto names = pha::data::task_names();
  EXPECT_EQ(std::find(names.begin(), names.end(), "mad_compression"), names.end());
}

// Held-out sets default to the suite's own test size and are labelled by their T range and size.
TEST(TaskSets, DefaultTestSizeAndLabelFollowTheSuite) {
  EXPECT_EQ(pha::data::default_test_examples(make_task({{"task", "mad_selective_copy"}})->info()), 1280);
  EXPECT_EQ(pha::data::default_test_examples(make_task({{"task", "mad_in_context_recall"}})->info()), 1280);
  EXPECT_EQ(pha::data::default_test_examples(make_task({{"task", "mqar"}})->info()), 1000);
  EXPECT_EQ(pha::data::default_test_examples(make_task({{"task", "selective_copy"}})->info()), 1000);
  auto varying = make_task({{"task", "selective_copy"}, {"num_examples", 1000}});
  EXPECT_EQ(pha::data::describe_set(varying->info()), "T 20-50, 1000 seq.");
  auto needle = make_task({{"task", "needle"}, {"seq_len", 64}, {"seq_len_min", 32}, {"num_examples", 500}});
  EXPECT_EQ(pha::data::describe_set(needle->info()), "T 32-64, 500 seq.");
  EXPECT_EQ(pha::data::describe_set(make_task({{"task", "mqar"}, {"num_examples", 1000}})->info()), "T 64, 1000 seq.");
}

TEST(MadMemorization, TargetsFollowOneFixedMapAcrossSequencesAndSeeds) {
  std::map<int32_t, int32_t> map;
  for (int seed : {1, 2}) {
    json cfg = {{"task", "mad_memorization"}, {"seed", seed}, {"map_seed", 9}};
    check_all(cfg, [&](const Sample& s, const pha::data::TaskGenerator& task) {
      const int32_t V = task.params()["vocab_size"];
      for (size_t t = 0; t < s.inputs.size(); t += 2) {
        ASSERT_LT(s.inputs[t], V / 2);
        ASSERT_EQ(s.targets[t], kIgnore);
        ASSERT_EQ(s.inputs[t + 1], V) << "insert token";
        ASSERT_GE(s.targets[t + 1], V / 2);
        auto [it, fresh] = map.emplace(s.inputs[t], s.targets[t + 1]);
        ASSERT_EQ(it->second, s.targets[t + 1]) << "key " << s.inputs[t] << " maps to two values";
      }
    });
  }
  EXPECT_EQ(map.size(), 128u) << "1000 sequences of 16 keys cover all 128 keys";
}

TEST(ArDecode, TargetIsThePermutedValueOfTheQueriedKey) {
  json cfg = {{"task", "ar_decode"}, {"seq_len_min", 10}, {"seq_len", 40}, {"map_seed", 4}};
  const int32_t V = 64;
  auto g = pha::data::ar_decode_permutation(V, 4);
  std::set<int32_t> images(g.begin(), g.end());
  ASSERT_EQ(images.size(), static_cast<size_t>(V / 2));
  EXPECT_GE(*images.begin(), V / 2);
  bool g_not_identity = false;
  for (size_t i = 0; i < g.size(); ++i) g_not_identity |= g[i] != static_cast<int32_t>(V / 2 + i);
  EXPECT_TRUE(g_not_identity);
  check_all(cfg, [&](const Sample& s, const pha::data::TaskGenerator& task) {
    const int T = task.info().seq_len;
    size_t t = 0;
    while (s.inputs[t] == V + 1) ++t;  // padding
    std::map<int32_t, int32_t> kv;
    for (; s.inputs[t] != V; t += 2) {
      auto [it, fresh] = kv.emplace(s.inputs[t], s.inputs[t + 1]);
      ASSERT_EQ(it->second, s.inputs[t + 1]);
    }
    ASSERT_EQ(t, static_cast<size_t>(T - 2)) << "separator second to last";
    const int32_t q = s.inputs[T - 1];
    ASSERT_TRUE(kv.count(q));
    ASSERT_EQ(s.targets[T - 1], g[static_cast<size_t>(kv[q] - V / 2)]);
    for (int i = 0; i < T - 1; ++i) ASSERT_EQ(s.targets[i], kIgnore);
  });
}

TEST(Mkar, TargetIsTheValueOfTheTripleWithBothKeysAndDistractorsShareOne) {
  json cfg = {{"task", "mkar"}};
  const int32_t V = 64;
  check_all(cfg, [&](const Sample& s, const pha::data::TaskGenerator& task) {
    const int T = task.info().seq_len;
    ASSERT_EQ(s.inputs[T - 3], V);
    const int32_t q1 = s.inputs[T - 2], q2 = s.inputs[T - 1];
    size_t t = 0;
    while (s.inputs[t] == V + 1) ++t;
    int matches = 0;
    int32_t value = -1;
    for (; t + 3 < static_cast<size_t>(T); t += 3) {
      const int32_t a = s.inputs[t], b = s.inputs[t + 1];
      if (a == q1 && b == q2) {
        ++matches;
        value = s.inputs[t + 2];
      } else {
        ASSERT_TRUE(a == q1 || b == q2) << "distractor shares no key";
      }
    }
    ASSERT_EQ(matches, 1);
    ASSERT_EQ(s.targets[T - 1], value);
  });
}

TEST(Needle, TargetIsTheTokenAfterTheOnlyEarlierQueryKey) {
  json cfg = {{"task", "needle"}, {"seq_len_min", 20}, {"seq_len", 50}};
  const int32_t V = 64;
  check_all(cfg, [&](const Sample& s, const pha::data::TaskGenerator& task) {
    const int T = task.info().seq_len;
    const int32_t k = s.inputs[T - 1];
    int found = -1, count = 0;
    for (int t = 0; t < T - 1; ++t)
      if (s.inputs[t] == k) {
        found = t;
        ++count;
      }
    ASSERT_EQ(count, 1);
    ASSERT_NE(k, V);
    ASSERT_EQ(s.targets[T - 1], s.inputs[found + 1]);
  });
}
