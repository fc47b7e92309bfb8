# Compiler settings for our own targets only (no global flags).
if(PHA_USE_CCACHE)
  find_program(PHA_CCACHE ccache)
  if(PHA_CCACHE)
    # Sloppiness pch_defines,time_macros: without it ccache does not cache a unit compiled with
    # the torch precompiled header (cmake/PhaPch.cmake), and a warm build recompiled them all.
    find_program(PHA_ENV env REQUIRED)
    set(CMAKE_CXX_COMPILER_LAUNCHER "${PHA_ENV};CCACHE_SLOPPINESS=pch_defines,time_macros;${PHA_CCACHE}")
    set(CMAKE_CUDA_COMPILER_LAUNCHER "${PHA_CCACHE}")
  endif()
endif()

# Optimisation by tier (docs/environment.md, "Optimisation by tier"). In a Release build the
# engine and the kernels keep the build type's -O3: they are what trains and measures. The
# programs' own code (the CLI's commands, the window's libraries, the widgets: forms, tables,
# argument parsing, calls into the engine) builds at -O1, and the tests at -O0: their code is
# assertions and set-up, and most of a unit's compile time was the optimiser's (a test unit
# 24.5 s at -O3, 8.1 s at -O0; a CLI command 12.0 s and 8.0 s at -O1). Tests that include torch
# build at -O1 instead: they keep the torch PCH (GCC refuses a PCH made at -O3 in an -O0 unit:
# __OPTIMIZE__ differs), and their reference loops over tensor accessors stay fast. Numerics do
# not change with the level: no -ffast-math, and no FMA (baseline x86-64 ISA), so every level
# rounds each operation the same. Only the Release build type (the default and headless
# presets): Debug, sanitizer and fuzz builds keep their own levels; PHA_OPT_TIERS=OFF builds
# everything at the build type's level.
option(PHA_OPT_TIERS "Release builds: -O1 for the programs' own code, -O0/-O1 for the tests" ON)
set(PHA_OPT_TIERS_ACTIVE OFF)
if(PHA_OPT_TIERS AND CMAKE_BUILD_TYPE STREQUAL "Release" AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  set(PHA_OPT_TIERS_ACTIVE ON)
endif()
# pha_opt_tier(<app|test|test_torch> <target>...)
function(pha_opt_tier tier)
  if(NOT PHA_OPT_TIERS_ACTIVE)
    return()
  endif()
  if(tier STREQUAL "app" OR tier STREQUAL "test_torch")
    set(level -O1)
  elseif(tier STREQUAL "test")
    set(level -O0)
  else()
    message(FATAL_ERROR "pha_opt_tier: unknown tier ${tier} (app, test, test_torch)")
  endif()
  foreach(target IN LISTS ARGN)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${level}>)
  endforeach()
endfunction()

# pha_unity(<target>...): compile a target's files together, up to 8 per unit (CMake's unity
# build), so that the headers they share (the Qt PCH's 300 MB load, json, GoogleTest, the
# engine's headers) are read once per batch instead of once per file: a window file at -O1
# spent 1.9 s of its 3.3 s reading headers. Files in one target must then not share file-local
# names (anonymous namespaces and statics are one scope per batch). PHA_UNITY=OFF compiles
# file by file (to check that each file includes what it uses).
option(PHA_UNITY "Unity builds for the window, widgets, CLI and tests" ON)
function(pha_unity)
  if(NOT PHA_UNITY)
    return()
  endif()
  foreach(target IN LISTS ARGN)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  endforeach()
endfunction()

# pha_set_warnings(target): warnings on for our code; torch/Qt come in as system headers.
function(pha_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-unused-parameter>)
endfunction()

# PHA_QT_VISIBILITY: compile options for every translation unit that includes Qt 6 headers
# (docs/environment.md, "Qt 5 inside the Qt 6 app"). Debian's libtorch_cpu needs OpenCV's
# highgui, which loads Qt 5 into every process that links the engine. Without optimisation GCC
# emits Qt 6's inline functions as weak definitions in our objects, and the linker exports from
# an executable every symbol that a shared library in the link references: Qt 5's libraries
# reference the same mangled names (QByteArray::append(char const*) is a real function there),
# so Qt5Widgets' static initialiser ran Qt 6 code on Qt 5 data and Debug / ASan GUI binaries
# crashed before main. Hidden visibility keeps those copies out of the dynamic symbol table;
# nothing of ours needs exporting (no shared library, no plugin). pha::widgets carries them as
# PUBLIC options, so every Qt target (it links pha::widgets) gets them. Check with
# `nm -D --defined-only <binary> | c++filt | grep Q`: no Qt symbol may be listed.
set(PHA_QT_VISIBILITY -fvisibility=hidden -fvisibility-inlines-hidden)

# Sanitizer builds halt on the first report (-fno-sanitize-recover=all): a UBSan finding fails
# the test instead of printing a line and passing.
option(PHA_SANITIZE "Build our targets with AddressSanitizer + UndefinedBehaviorSanitizer" OFF)
if(PHA_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
  # UBSan's vptr check makes every Qt translation unit emit the RTTI of the Qt classes it
  # touches (typeinfo for QObjectData, through QObject's inline d_ptr accessors). Qt declares
  # those classes exported, so the copies keep default visibility whatever -fvisibility says,
  # and the executable exports them under names Qt 5 also defines (the clash CI checks for,
  # docs/environment.md). The vptr check stays on for the engine, kernels and CLI.
  list(APPEND PHA_QT_VISIBILITY -fno-sanitize=vptr)
endif()

# ThreadSanitizer (the tsan preset: the store, runtime and GUI-queue tests; docs/testing.md).
# LibTorch, OpenMP and Qt are not instrumented: the tests run with one intra-op thread, and
# tests/tsan.supp lists what is suppressed and why.
option(PHA_TSAN "Build our targets with ThreadSanitizer" OFF)
if(PHA_TSAN)
  if(PHA_SANITIZE)
    message(FATAL_ERROR "PHA_TSAN and PHA_SANITIZE (ASan) cannot be combined")
  endif()
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()

# libFuzzer (tests/fuzz, clang only): our code with coverage instrumentation + ASan + UBSan; the
# fuzz executables link -fsanitize=fuzzer (libFuzzer's main).
option(PHA_FUZZ "Build the libFuzzer targets in tests/fuzz (clang)" OFF)
if(PHA_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "PHA_FUZZ needs clang (the `fuzz` preset sets clang++-14), not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
  # UBSan's vptr check makes every Qt translation unit emit the RTTI of the Qt classes it
  # touches (typeinfo for QObjectData, through QObject's inline d_ptr accessors). Qt declares
  # those classes exported, so the copies keep default visibility whatever -fvisibility says,
  # and the executable exports them under names Qt 5 also defines (the clash CI checks for,
  # docs/environment.md). The vptr check stays on for the engine, kernels and CLI.
  list(APPEND PHA_QT_VISIBILITY -fno-sanitize=vptr)
endif()

# pha_add_library(<name> SOURCES ... [PUBLIC libs...] [PRIVATE libs...] [INCLUDE_DIR dir]
#                 [AUTOMOC]): every library of ours has one shape, written here once: a static
# library pha_<name> with the alias pha::<name>, its include root (default engine/, so that
# includes read "store/store.h"; a window library gives its own folder), its links, our
# warnings, and Qt's moc for a window library (AUTOMOC).
function(pha_add_library name)
  cmake_parse_arguments(L "AUTOMOC" "INCLUDE_DIR" "SOURCES;PUBLIC;PRIVATE" ${ARGN})
  if(L_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "pha_add_library(${name}): unknown arguments ${L_UNPARSED_ARGUMENTS}")
  endif()
  add_library(pha_${name} STATIC ${L_SOURCES})
  add_library(pha::${name} ALIAS pha_${name})
  if(NOT L_INCLUDE_DIR)
    set(L_INCLUDE_DIR ${PROJECT_SOURCE_DIR}/engine)
  endif()
  target_include_directories(pha_${name} PUBLIC ${L_INCLUDE_DIR})
  if(L_PUBLIC)
    target_link_libraries(pha_${name} PUBLIC ${L_PUBLIC})
  endif()
  if(L_PRIVATE)
    target_link_libraries(pha_${name} PRIVATE ${L_PRIVATE})
  endif()
  if(L_AUTOMOC)
    set_target_properties(pha_${name} PROPERTIES AUTOMOC ON)
  endif()
  pha_set_warnings(pha_${name})
  pha_unity(pha_${name})
endfunction()
