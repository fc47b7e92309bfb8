#include "cmd_progress.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>

namespace pha::cli {

namespace {
std::atomic<runtime::RunControl*> g_control{nullptr};
std::atomic<int> g_signals{0};
std::atomic<bool> g_worker{false};

void on_signal(int) {
  // A worker gets a terminal's Ctrl-C and the one its parent passes on: both mean "cancel".
  if (g_signals.fetch_add(1) >= 1) {
    if (g_worker.load()) return;
    _exit(130);
  }
  if (auto* c = g_control.load()) c->request_cancel();
  static const char msg[] = "\npha: stopping after this step (a checkpoint is written); press Ctrl-C again to quit now\n";
  (void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
}

void on_pause_signal(int sig) {
  if (auto* c = g_control.load()) c->set_paused(sig == SIGUSR1);
}
}  // namespace

std::string format_bytes(int64_t b) {
  char buf[32];
  if (b >= (int64_t{1} << 30)) std::snprintf(buf, sizeof(buf), "%.2f GB", static_cast<double>(b) / 1e9);
  else std::snprintf(buf, sizeof(buf), "%.0f MB", static_cast<double>(b) / 1e6);
  return buf;
}

ProgressPrinter::ProgressPrinter(std::string label, bool quiet, bool lines)
    : label_(std::move(label)), quiet_(quiet), tty_(!lines && isatty(STDERR_FILENO) != 0) {}

ProgressPrinter::~ProgressPrinter() { end_line(); }

void ProgressPrinter::end_line() {
  if (line_open_) std::fputc('\n', stderr);
  line_open_ = false;
}

void ProgressPrinter::on_step(const runtime::StepMetrics& m) {
  if (quiet_) return;
  const auto now = std::chrono::steady_clock::now();
  const bool last = m.step == m.total_steps;
  const std::string known_eta = core::format_duration(m.eta_s);
  const std::string eta = known_eta.empty() ? "?" : known_eta;  // not measured yet
  char line[256];
  std::snprintf(line, sizeof(line), "[%s] step %lld/%lld  loss %.4f  ppl %.2f  lr %.2e  |g| %.3f  %.0f tok/s  %s  ETA %s",
                label_.c_str(), static_cast<long long>(m.step), static_cast<long long>(m.total_steps), m.loss,
                m.perplexity, m.learning_rate, m.grad_norm, m.tokens_per_s, format_bytes(m.memory_bytes).c_str(),
                eta.c_str());
  if (tty_) {
    if (!last && now - last_print_ < std::chrono::milliseconds(100)) return;
    std::fprintf(stderr, "\r%s\033[K", line);
    line_open_ = true;
  } else {
    const int64_t bucket = m.total_steps > 0 ? m.step * 20 / m.total_steps : m.step;
    if (!last && bucket == last_bucket_ && now - last_print_ < std::chrono::seconds(10)) return;
    last_bucket_ = bucket;
    std::fprintf(stderr, "%s\n", line);
  }
  last_print_ = now;
  std::fflush(stderr);
}

void ProgressPrinter::on_eval(const runtime::EvalEvent& e) {
  if (quiet_ || e.seq_len != 0) return;  // final / sweep results arrive as log lines and tables
  end_line();
  std::fprintf(stderr, "[%s] step %lld eval %s %s = %.4f\n", label_.c_str(), static_cast<long long>(e.step),
               e.split.c_str(), e.metric.c_str(), e.value);
}

void ProgressPrinter::on_log(const runtime::LogEvent& e) {
  if (quiet_ && e.level == runtime::LogEvent::Level::Info) return;
  end_line();
  const char* tag = e.level == runtime::LogEvent::Level::Error ? "error: " : e.level == runtime::LogEvent::Level::Warning ? "warning: " : "";
  std::fprintf(stderr, "[%s] %s%s\n", label_.c_str(), tag, e.message.c_str());
}

void ProgressPrinter::on_status(const runtime::StatusEvent& e) {
  if (quiet_ || e.status == runtime::JobStatus::Running) return;
  end_line();
  std::fprintf(stderr, "[%s] %s\n", label_.c_str(), runtime::job_status_name(e.status));
}

void ProgressPrinter::on_efficiency(const runtime::EfficiencyEvent& e) {
  if (quiet_) return;
  end_line();
  const store::PerfRow& p = e.row;
  std::fprintf(stderr, "[bench] %-18s T=%-5lld B=%-3lld %-7s %10.0f tok/s  peak %s\n", e.variant.c_str(),
               static_cast<long long>(p.seq_len), static_cast<long long>(p.batch), p.phase.c_str(), p.tokens_per_s,
               format_bytes(p.peak_bytes).c_str());
}

CancelOnSignal::CancelOnSignal(runtime::RunControl& control, bool worker) {
  g_control.store(&control);
  g_signals.store(0);
  g_worker.store(worker);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

CancelOnSignal::~CancelOnSignal() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  g_control.store(nullptr);
}

bool CancelOnSignal::triggered() const { return g_signals.load() > 0; }

PauseOnSignal::PauseOnSignal(runtime::RunControl& control) {
  g_control.store(&control);
  struct sigaction sa {};
  sa.sa_handler = on_pause_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, nullptr);
  sigaction(SIGUSR2, &sa, nullptr);
  sigset_t both;
  sigemptyset(&both);
  sigaddset(&both, SIGUSR1);
  sigaddset(&both, SIGUSR2);
  sigprocmask(SIG_UNBLOCK, &both, nullptr);  // held blocked by the pool until now (runtime/worker_pool.h)
}

PauseOnSignal::~PauseOnSignal() {
  std::signal(SIGUSR1, SIG_IGN);
  std::signal(SIGUSR2, SIG_IGN);
}

}  // namespace pha::cli
