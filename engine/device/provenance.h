// Run provenance: what produced a run's numbers, recorded with the run (runs.env_json, schema
// v7; docs/store.md "Provenance") and shown by `pha runs show`, `pha runs export` (columns
// env.<key>), the window's run details and Compare > Config diff. Plain C++ header (the GUI
// and the CLI include it); collect_provenance asks LibTorch and the machine. Reading a record
// back (fields, which keys change numbers) is core/provenance_fields.h, torch-free.
//
// The record is a flat JSON object of strings so that every view shows it the same way:
//   program.version, program.commit, program.build  what was run (commit embedded at build time)
//   precision, precision.setting, precision.reason  what training.precision resolved to, and why
//   kernels                                         fused | reference | reference:<ops>
//   threads.intra_op, threads.blas, threads.policy  the thread counts and why
//   blas.library, blas.core                         the BLAS shared object and its kernel core
//   torch.version, torch.build                      LibTorch's version and build settings
//   device, device.name                             cpu / cuda and the CPU or GPU model
//   cpu.model, cpu.flags                            the CPU and the flags the kernels care about
//   host, world_size, backend                       where and how many processes
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace pha::device {

// What the caller knows that the machine cannot tell (the trainer's resolved precision).
struct ProvenanceInputs {
  std::string precision;          // "bf16" | "fp32": what trains
  std::string precision_setting;  // "auto" | "bf16" | "fp32": what was asked
  std::string precision_reason;   // why (model::PrecisionChoice::reason)
  std::string kernels;            // kernels::kernel_selection()
  std::string device;             // "cpu" | "cuda"
  int world_size = 1;
  std::string backend;            // "" for one process
};

// The record for a run starting in this process now.
nlohmann::json collect_provenance(const ProvenanceInputs& in);

// The CPU's model name (/proc/cpuinfo), "unknown CPU" when it cannot be read.
std::string cpu_model_name();
// The CPU flags that decide which kernels run ("avx2 fma avx512f avx512_bf16 amx_bf16").
std::string cpu_kernel_flags();

}  // namespace pha::device
