#include "runtime/event_stream.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/numbers.h"

namespace pha::runtime {

using nlohmann::json;

namespace {

// JSON has no NaN: a missing layer's mixer row travels as null.
json floats(const std::vector<float>& v) {
  json a = json::array();
  for (float x : v) a.push_back(std::isfinite(x) ? json(x) : json());
  return a;
}

std::vector<float> floats_of(const json& a) {
  std::vector<float> v;
  if (!a.is_array()) return v;
  v.reserve(a.size());
  for (const auto& x : a) v.push_back(x.is_number() ? x.get<float>() : core::kNaNf);
  return v;
}

JobStatus status_of(const std::string& name) {
  for (auto s : {JobStatus::Queued, JobStatus::Running, JobStatus::Paused, JobStatus::Finished, JobStatus::Failed,
                 JobStatus::Cancelled, JobStatus::Diverged, JobStatus::Interrupted})
    if (name == job_status_name(s)) return s;
  return JobStatus::Failed;
}

}  // namespace

void EventWriter::write_line(const std::string& text) {
  std::string line = text + "\n";
  const char* p = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone: the run goes on and the store keeps it
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

void EventWriter::on_step(const StepMetrics& m) {
  write_line(json{{"e", "step"}, {"run_id", m.run_id}, {"step", m.step}, {"total_steps", m.total_steps},
                  {"tokens", m.tokens}, {"wall_s", m.wall_s}, {"loss", m.loss}, {"perplexity", m.perplexity},
                  {"learning_rate", m.learning_rate}, {"grad_norm", m.grad_norm}, {"tokens_per_s", m.tokens_per_s},
                  {"memory_bytes", m.memory_bytes}, {"eta_s", m.eta_s}}
                 .dump());
}

void EventWriter::on_mixer(const MixerEvent& e) {
  write_line(json{{"e", "mixer"}, {"run_id", e.run_id}, {"step", e.step}, {"layers", e.layers},
                  {"branches", e.branches}, {"weights", floats(e.weights)}}
                 .dump());
}

void EventWriter::on_branch_norms(const BranchNormEvent& e) {
  write_line(json{{"e", "norms"}, {"run_id", e.run_id}, {"step", e.step}, {"layers", e.layers},
                  {"branches", e.branches}, {"rms", floats(e.rms)}}
                 .dump());
}

void EventWriter::on_eval(const EvalEvent& e) {
  write_line(json{{"e", "eval"}, {"run_id", e.run_id}, {"step", e.step}, {"split", e.split}, {"metric", e.metric},
                  {"seq_len", e.seq_len}, {"value", std::isfinite(e.value) ? json(e.value) : json()}}
                 .dump());
}

void EventWriter::on_log(const LogEvent& e) {
  write_line(json{{"e", "log"}, {"run_id", e.run_id}, {"level", static_cast<int>(e.level)}, {"message", e.message}}
                 .dump(-1, ' ', false, json::error_handler_t::replace));
}

void EventWriter::on_status(const StatusEvent& e) {
  write_line(json{{"e", "status"}, {"run_id", e.run_id}, {"status", job_status_name(e.status)}, {"reason", e.reason}}
                 .dump(-1, ' ', false, json::error_handler_t::replace));
}

void EventWriter::result(const JobResult& r) {
  write_line(json{{"e", "result"}, {"run_id", r.run_id}, {"status", job_status_name(r.status)}, {"reason", r.reason},
                  {"steps_done", r.steps_done}, {"final_loss", std::isfinite(r.final_loss) ? json(r.final_loss) : json()},
                  {"last_checkpoint", r.last_checkpoint}}
                 .dump(-1, ' ', false, json::error_handler_t::replace));
}

bool replay_event_line(const std::string& line, RunObserver& observer, JobResult* result) {
  const json j = json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("e") || !j["e"].is_string()) return false;
  const std::string e = j["e"].get<std::string>();
  auto num = [&](const char* k) { return j.contains(k) && j[k].is_number() ? j[k].get<double>() : core::kNaN; };
  auto i64 = [&](const char* k) { return j.contains(k) && j[k].is_number() ? j[k].get<std::int64_t>() : std::int64_t{0}; };
  auto str = [&](const char* k) { return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string(); };
  if (e == "step") {
    StepMetrics m;
    m.run_id = i64("run_id");
    m.step = i64("step");
    m.total_steps = i64("total_steps");
    m.tokens = i64("tokens");
    m.wall_s = num("wall_s");
    m.loss = num("loss");
    m.perplexity = num("perplexity");
    m.learning_rate = num("learning_rate");
    m.grad_norm = num("grad_norm");
    m.tokens_per_s = num("tokens_per_s");
    m.memory_bytes = i64("memory_bytes");
    m.eta_s = num("eta_s");
    observer.on_step(m);
  } else if (e == "mixer") {
    MixerEvent m;
    m.run_id = i64("run_id");
    m.step = i64("step");
    m.layers = static_cast<int>(i64("layers"));
    m.branches = static_cast<int>(i64("branches"));
    m.weights = floats_of(j.value("weights", json()));
    observer.on_mixer(m);
  } else if (e == "norms") {
    BranchNormEvent m;
    m.run_id = i64("run_id");
    m.step = i64("step");
    m.layers = static_cast<int>(i64("layers"));
    m.branches = static_cast<int>(i64("branches"));
    m.rms = floats_of(j.value("rms", json()));
    observer.on_branch_norms(m);
  } else if (e == "eval") {
    EvalEvent m;
    m.run_id = i64("run_id");
    m.step = i64("step");
    m.split = str("split");
    m.metric = str("metric");
    m.seq_len = i64("seq_len");
    m.value = num("value");
    observer.on_eval(m);
  } else if (e == "log") {
    LogEvent m;
    m.run_id = i64("run_id");
    const auto level = i64("level");
    m.level = level == 2 ? LogEvent::Level::Error : level == 1 ? LogEvent::Level::Warning : LogEvent::Level::Info;
    m.message = str("message");
    observer.on_log(m);
  } else if (e == "status") {
    StatusEvent m;
    m.run_id = i64("run_id");
    m.status = status_of(str("status"));
    m.reason = str("reason");
    observer.on_status(m);
  } else if (e == "result") {
    if (!result) return true;
    result->run_id = i64("run_id");
    result->status = status_of(str("status"));
    result->reason = str("reason");
    result->steps_done = i64("steps_done");
    result->final_loss = num("final_loss");
    result->last_checkpoint = str("last_checkpoint");
    return true;
  } else {
    return false;
  }
  return false;
}

}  // namespace pha::runtime
