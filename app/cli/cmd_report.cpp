// `pha report PROJECT`: the project's claims tested on its runs (verdicts with their spread over
// seeds), its metrics per group, parameter efficiency and accuracy against length, as Markdown,
// self-contained HTML or JSON (runtime::project_report, analysis::render_report: the same
// functions the window's Report tab calls).
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "runtime/export.h"
#include "project/project_report.h"

namespace pha::cli {

void add_report_command(CLI::App& app, GlobalOptions&) {
  struct Opts {
    std::string project, format = "md", output, store;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("report", "Test the project's claims on its runs: verdicts with spread over seeds, "
                                           "metrics per group, accuracy against parameters and length");
  cmd->add_option("project", o->project, "Project folder (or its project.json)")->required();
  cmd->add_option("--format", o->format, "md | html | json")->check(CLI::IsMember({"md", "html", "json"}));
  cmd->add_option("--output,-o", o->output, "Write the report to this file (default: stdout)");
  cmd->add_option("--store", o->store, "Run store file (default: the project's runs.sqlite)");
  cmd->callback([o] {
    const analysis::Report report = project::project_report(o->project, o->store);
    const std::string text = analysis::render_report(report, o->format);
    if (o->output.empty()) {
      std::cout << text;
      return;
    }
    runtime::write_file_atomically(o->output, text);
    std::fprintf(stderr, "report of %s (%zu claims, %zu groups) written to %s\n", report.project.c_str(),
                 report.claims.size(), report.groups.size(), o->output.c_str());
  });
}

}  // namespace pha::cli
