# Precompiled headers by need (docs/environment.md, "Build times"), each compiled once and
# reused by every target of its kind (REUSE_FROM: one .gch for all, not one per target):
#   pha_torch_pch (cmake/pch/torch_pch.h): ATen, torch's nn/optim/autograd headers, nlohmann
#     json; only for targets whose files include torch (kernels, device, nn, distributed, the
#     trainer's unit, the model and kernel tests): trainer.cpp took 32 s on 2 cores, 17 s with
#     it. A torch-free unit is slower with it than with none (job.cpp 14.5 s vs 11.2 s: loading
#     the large .gch costs more than the headers it uses), so it never gets it.
#   No PCH for torch-free, Qt-free targets (the plain engine libraries, the runtime's plain
#     units, the CLI, most tests): loading a large .gch costs more than such a unit parses. A
#     "light" PCH of the standard library, json, CLI11 and GoogleTest (140 MB) made core's units
#     5-6 s each instead of 0.3-4.6 s; a CLI11 + json one (118 MB) saved 3 s of cmd_runs.cpp's
#     25 s, not worth a third PCH (measured 2026-12-05, step 17).
#   pha_qt_pch (cmake/pch/qt_pch.h): Qt Core/Gui/Widgets and QCustomPlot, with the options every
#     Qt target gets from pha::widgets; for the widgets, the GUI libraries, the program and the
#     GUI tests. Never both in one target: a test that links Qt and torch (test_gui_compare)
#     gets neither.
#
# GCC only: GCC checks the .gch against each unit's options and, when they differ, says so
# (-Winvalid-pch) and parses the headers as text, so a mismatch costs time, never correctness.
# Clang (the fuzz preset) rejects a mismatched PCH as an error, so it builds without one.
# PHA_PCH=OFF turns both off (to measure, or to check that every file includes what it uses).
#
# ccache caches units that use a PCH only with sloppiness pch_defines,time_macros (ccache
# manual, "Precompiled headers"); the launcher sets it for our compiles (cmake/PhaCompiler.cmake).
option(PHA_PCH "Precompile the LibTorch and Qt headers once for their targets (GCC)" ON)
set(PHA_PCH_ACTIVE OFF)
if(PHA_PCH AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(PHA_PCH_ACTIVE ON)
endif()

# pha_add_pch(<name> <header> LIBS ... [DEFINES ...] [OPTIONS ...]): the PCH target <name>,
# compiled with what its users get from LIBS, DEFINES and OPTIONS, and the warnings (-Wpedantic
# changes the predefined macros, so they must match too).
function(pha_add_pch name header)
  cmake_parse_arguments(P "" "" "LIBS;DEFINES;OPTIONS" ${ARGN})
  add_library(${name} OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch/pch_anchor.cpp)
  target_link_libraries(${name} PRIVATE ${P_LIBS})
  if(P_DEFINES)
    target_compile_definitions(${name} PRIVATE ${P_DEFINES})
  endif()
  if(P_OPTIONS)
    target_compile_options(${name} PRIVATE ${P_OPTIONS})
  endif()
  pha_set_warnings(${name})
  target_precompile_headers(${name} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:${PROJECT_SOURCE_DIR}/cmake/pch/${header}>")
endfunction()

if(PHA_PCH_ACTIVE)
  pha_add_pch(pha_torch_pch torch_pch.h LIBS ${TORCH_LIBRARIES} nlohmann_json::nlohmann_json)
  if(PHA_BUILD_GUI)
    # What pha::widgets passes on to every Qt target that links it (widgets/CMakeLists.txt).
    pha_add_pch(pha_qt_pch qt_pch.h LIBS Qt6::Widgets Qt6::PrintSupport QCustomPlotQt6::QCustomPlotQt6
                DEFINES QCUSTOMPLOT_USE_LIBRARY OPTIONS ${PHA_QT_VISIBILITY})
  endif()
endif()

# pha_use_pch(<pch> <target>...): the targets reuse that PCH (a no-op where it is not built).
function(pha_use_pch pch)
  if(NOT TARGET ${pch})
    return()
  endif()
  foreach(target IN LISTS ARGN)
    target_precompile_headers(${target} REUSE_FROM ${pch})
  endforeach()
endfunction()
# pha_torch_pch(<target>...): targets whose files include torch.
function(pha_torch_pch)
  pha_use_pch(pha_torch_pch ${ARGN})
endfunction()
# pha_qt_pch(<target>...): Qt targets that link pha::widgets (its definitions and options).
function(pha_qt_pch)
  pha_use_pch(pha_qt_pch ${ARGN})
endfunction()
