// The efficiency profile as the CLI shows it, shared by `pha bench` and `pha train`: the table
// of measured points, and a project's profile (runtime::run_profile_job) with its progress,
// table and where it was recorded.
#pragma once

#include <vector>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "runtime/events.h"
#include "runtime/inference_bench.h"
#include "runtime/profile_job.h"
#include "runtime/profiler.h"

namespace pha::cli {

// model, T, B, phase, tokens/s, peak RSS, parameters and the error of each point, then the
// method of measurement.
void print_profile_table(const std::vector<runtime::ProfilePointResult>& rows);

// Runs the project's profile and prints it; returns the job's result (points, recorded runs).
// Bad input throws core::Error before anything is measured.
// The profile's header line (points, models x lengths x phases) and its table with where it was recorded.
void print_profile_header(const runtime::ProfileSweep& sweep);
void print_profile_result(const runtime::ProfileJobResult& r);
runtime::ProfileJobResult run_project_profile(const runtime::ProfileJobSpec& spec, bool quiet,
                                              runtime::RunControl& control);

// `pha bench inference` (and its hidden worker `__inference-point`), added under `bench`
// (cmd_bench_inference.cpp): the table of points, the formula check and the decode slopes.
void add_bench_inference_command(CLI::App& bench, GlobalOptions& global);
void print_inference_table(const std::vector<runtime::InferencePointResult>& rows);

}  // namespace pha::cli
