#include "runtime/internal/evaluator.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "data/batcher.h"

namespace pha::runtime {

using nlohmann::json;

TextEvalResult evaluate_text(Trainer& trainer, const data::TokenArray& split, const std::vector<int32_t>& token_bytes,
                             int B, int T, int64_t max_tokens) {
  TextEvalResult r;
  if (split.size() < 2) return r;
  data::EvalBatcher batcher(split, B, T);
  double nll = 0.0;
  std::vector<double> win_nll, win_count, win_bytes;  // per window (one sequence of a batch)
  for (size_t i = 0; i < batcher.num_batches(); ++i) {
    if (max_tokens > 0 && r.tokens >= max_tokens) break;
    const data::Batch b = batcher.batch(i);
    const LossSums s = trainer.eval_loss(b);
    nll += s.nll;
    r.tokens += s.count;
    for (int row = 0; row < b.B; ++row) {
      int64_t bytes = 0;
      for (int t = 0; t < b.T; ++t) {
        const int32_t tok = b.targets[static_cast<size_t>(row) * static_cast<size_t>(b.T) + static_cast<size_t>(t)];
        if (tok >= 0 && static_cast<size_t>(tok) < token_bytes.size()) bytes += token_bytes[static_cast<size_t>(tok)];
      }
      r.bytes += bytes;
      if (s.row_count[static_cast<size_t>(row)] == 0) continue;  // a padding row predicts nothing
      win_nll.push_back(s.row_nll[static_cast<size_t>(row)]);
      win_count.push_back(static_cast<double>(s.row_count[static_cast<size_t>(row)]));
      win_bytes.push_back(static_cast<double>(bytes));
    }
  }
  if (r.tokens == 0) return r;
  r.loss = nll / static_cast<double>(r.tokens);
  r.perplexity = std::exp(r.loss);
  r.bpb = r.bytes > 0 ? nll / std::log(2.0) / static_cast<double>(r.bytes) : 0.0;
  r.loss_se = data::ratio_standard_error(win_nll, win_count);
  r.bpb_se = data::ratio_standard_error(win_nll, win_bytes) / std::log(2.0);
  return r;
}

data::AccuracyReport evaluate_task(Trainer& trainer, const data::TaskGenerator& task, int64_t n, int B) {
  const int64_t size = std::max<int64_t>(1, task.info().num_examples);
  n = n > 0 ? std::min<int64_t>(n, size) : size;
  std::vector<int32_t> predictions, targets;
  for (int64_t first = 0; first < n; first += B) {
    const int rows = static_cast<int>(std::min<int64_t>(B, n - first));
    const data::Batch b = task.batch(static_cast<uint64_t>(first), rows);
    const std::vector<int32_t> p = trainer.predict(b);
    predictions.insert(predictions.end(), p.begin(), p.end());
    targets.insert(targets.end(), b.targets.begin(), b.targets.end());
  }
  return data::accuracy(predictions, targets, task.info().seq_len);
}

EvalPlan final_eval_plan(const project::DataSpec& data, const project::TrainingConfig& training) {
  EvalPlan p;
  p.batch_size = training.batch_size;
  if (!data.is_task) {
    p.splits = {data::Split::Valid, data::Split::Test};
    p.text_lengths = {training.seq_len};
    p.max_tokens = training.final_eval_tokens;
    return p;
  }
  p.sets = data.test_tasks;
  // The sweeps remake the training task on held-out sequences: seed + 10 (tasks-spec §2).
  const auto train = data::make_task(data.train_task);
  p.sweep_task = train->params();
  p.sweep_task["task"] = train->info().name;
  p.sweep_task["seed"] = p.sweep_task.value("seed", int64_t{0}) + 10;
  p.length_sweep = data.length_sweep;
  p.lengths = data.sweep_lengths;  // empty: data::length_sweep_lengths()
  p.ood_sweep = data.ood_sweep;
  p.sweep_examples = training.sweep_examples;
  return p;
}

EvalPlan periodic_eval_plan(const project::DataSpec& data, const project::TrainingConfig& training) {
  EvalPlan p;
  p.batch_size = training.batch_size;
  if (!data.is_task) {
    p.splits = {data::Split::Valid};
    p.text_lengths = {training.seq_len};
    p.max_tokens = training.eval_tokens;
  } else if (!data.test_tasks.empty()) {
    p.sets = {data.test_tasks.front()};
    p.examples = training.eval_examples;
  }
  return p;
}

namespace {

using Emit = std::function<void(EvalPoint)>;

void text_points(Trainer& trainer, const JobData& data, const EvalPlan& plan, const Emit& emit,
                 std::vector<std::string>& skipped) {
  if (plan.splits.empty()) return;
  if (data.is_task()) throw core::Error("evaluation", "text splits asked for on a task run");
  for (data::Split sp : plan.splits) {
    const auto& tokens = data.text().tokens(sp);
    const std::string name = data::split_name(sp);
    if (tokens.size() < 2) {
      skipped.push_back(name + ": the split is empty");
      continue;
    }
    for (int T : plan.text_lengths) {
      const TextEvalResult r = evaluate_text(trainer, tokens, data.token_bytes(), plan.batch_size, T, plan.max_tokens);
      if (r.tokens == 0) {
        skipped.push_back(name + " at T=" + std::to_string(T) + ": the split is shorter than one window");
        continue;
      }
      EvalPoint p;
      p.set = name;
      p.kind = "text";
      p.seq_len = T;
      p.loss = r.loss;
      p.perplexity = r.perplexity;
      p.bpb = r.bpb;
      p.loss_se = r.loss_se;
      p.bpb_se = r.bpb_se;
      p.perplexity_se = r.perplexity * r.loss_se;  // delta method: d exp(l) = exp(l) dl
      p.tokens = r.tokens;
      p.bytes = r.bytes;
      emit(std::move(p));
    }
  }
}

EvalPoint task_point(Trainer& trainer, const json& config, int64_t n, int B, std::string set, std::string kind) {
  const auto task = data::make_task(config);
  EvalPoint p;
  p.set = std::move(set);
  p.kind = std::move(kind);
  p.seq_len = task->info().seq_len;
  if (p.kind == "ood") p.bits_p = config.value("bits_p", 0.0);
  p.accuracy = evaluate_task(trainer, *task, n, B);
  return p;
}

void sweep_points(Trainer& trainer, const EvalPlan& plan, const Emit& emit, std::vector<std::string>& skipped) {
  if (plan.sweep_task.is_null() || (!plan.length_sweep && !plan.ood_sweep)) return;
  const std::string base = data::make_task(plan.sweep_task)->info().name;
  const std::string& label = plan.sweep_label;
  auto sized = [&](json c) {
    c["num_examples"] = plan.sweep_examples;
    return c;
  };
  if (plan.length_sweep) {
    // One T at a time, so that a length the task cannot be made at skips only that point.
    for (int T : plan.lengths.empty() ? data::length_sweep_lengths() : plan.lengths) {
      std::vector<data::TaskSet> sets;
      try {
        sets = data::length_generalization_sets(plan.sweep_task, {T});
      } catch (const core::Error& e) {
        skipped.push_back("length T=" + std::to_string(T) + ": " + e.what());
        continue;
      }
      emit(task_point(trainer, sized(sets.front().config), plan.sweep_examples, plan.batch_size,
                      label.empty() ? "length" : "length:" + label, "length"));
    }
  }
  if (plan.ood_sweep) {
    for (const auto& set : data::ood_bits_sets(plan.sweep_task)) {
      const std::string name = label.empty() ? set.name : label + set.name.substr(base.size());
      emit(task_point(trainer, sized(set.config), plan.sweep_examples, plan.batch_size, name, "ood"));
    }
  }
}

}  // namespace

EvalReport evaluate(Trainer& trainer, const JobData& data, const EvalPlan& plan,
                    const std::function<void(const EvalPoint&)>& on_point) {
  EvalReport report;
  const Emit emit = [&](EvalPoint p) {
    if (on_point) on_point(p);
    report.points.push_back(std::move(p));
  };
  text_points(trainer, data, plan, emit, report.skipped);
  for (const auto& [name, config] : plan.sets)
    emit(task_point(trainer, config, plan.examples, plan.batch_size, name, "task"));
  sweep_points(trainer, plan, emit, report.skipped);
  return report;
}

std::vector<store::EvalRow> store_rows(int64_t step, const EvalPoint& p) {
  // The *_se rows: the evaluation's standard error over its windows (text) or sequences (tasks),
  // which the report weighs effects against (docs/report.md); NaN (stored NULL) below 2 units.
  if (p.kind == "text")
    return {{step, p.set, p.seq_len, "loss", p.loss},
            {step, p.set, p.seq_len, "perplexity", p.perplexity},
            {step, p.set, p.seq_len, "bpb", p.bpb},
            {step, p.set, p.seq_len, "loss_se", p.loss_se},
            {step, p.set, p.seq_len, "perplexity_se", p.perplexity_se},
            {step, p.set, p.seq_len, "bpb_se", p.bpb_se}};
  return {{step, p.set, p.seq_len, "accuracy", p.accuracy.micro},
          {step, p.set, p.seq_len, "macro_accuracy", p.accuracy.macro},
          {step, p.set, p.seq_len, "exact_match", p.accuracy.exact_match},
          {step, p.set, p.seq_len, "accuracy_se", p.accuracy.micro_se}};
}

}  // namespace pha::runtime
