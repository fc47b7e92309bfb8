// The one source of each precompiled-header target (cmake/PhaPch.cmake): CMake compiles a PCH as
// part of a target, and this is that target's only file.
