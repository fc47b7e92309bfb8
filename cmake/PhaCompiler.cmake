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
endfunction()
