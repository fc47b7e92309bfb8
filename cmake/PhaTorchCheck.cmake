# pha_check_no_torch_includes(<target>...): the proof that the Qt code does not see LibTorch
# (docs/style.md, "Headers"). Fails the configure step when one of the targets would compile
# with torch's include directories: when a target on its link line, or one those pass on as
# usage requirements, carries a directory of TORCH_INCLUDE_DIRS. A `$<LINK_ONLY:...>` entry is
# linked but passes on nothing, which is how the GUI links the engine libraries whose own headers
# use torch (pha_gui_link_engine() in app/gui/CMakeLists.txt). Without the include directories a
# torch include in a GUI file does not compile either, so the build proves the rest.
# The compiler's own directories are left out: a system LibTorch (Debian's) lists /usr/include,
# which every target sees anyway; there the check is on torch/csrc/api/include (<torch/torch.h>),
# and <ATen/...> or <c10/...> stay reachable from /usr/include (docs/testing.md).
function(pha_check_no_torch_includes)
  set(torch_dirs ${TORCH_INCLUDE_DIRS})
  if(CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
    list(REMOVE_ITEM torch_dirs ${CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES})
  endif()
  if(NOT torch_dirs)
    message(FATAL_ERROR "pha_check_no_torch_includes: no torch include directory to check (TORCH_INCLUDE_DIRS: "
                        "${TORCH_INCLUDE_DIRS}); call it after find_package(Torch)")
  endif()
  foreach(target IN LISTS ARGN)
    get_target_property(own ${target} INCLUDE_DIRECTORIES)
    foreach(dir IN LISTS torch_dirs)
      if(own AND dir IN_LIST own)
        message(FATAL_ERROR "${target} must not compile with LibTorch's include directory ${dir}")
      endif()
    endforeach()
    get_target_property(direct ${target} LINK_LIBRARIES)
    if(NOT direct)
      continue()
    endif()
    set(seen "")
    foreach(first IN LISTS direct)
      set(todo "${first}")
      while(todo)
        list(POP_FRONT todo item)
        # `$<LINK_ONLY:x>` brings no usage requirements; "::@..." marks where a link was added.
        if(item MATCHES "^\\$<LINK_ONLY:" OR item MATCHES "^::@" OR NOT TARGET "${item}")
          continue()
        endif()
        get_target_property(aliased "${item}" ALIASED_TARGET)
        if(aliased)
          set(item "${aliased}")
        endif()
        if(item IN_LIST seen)
          continue()
        endif()
        list(APPEND seen "${item}")
        get_target_property(includes "${item}" INTERFACE_INCLUDE_DIRECTORIES)
        foreach(dir IN LISTS torch_dirs)
          if(includes AND dir IN_LIST includes)
            message(FATAL_ERROR "${target} must not see torch headers, but ${first} passes on ${item}'s "
                                "include directory ${dir}; link ${first} with pha_gui_link_engine() "
                                "(app/gui/CMakeLists.txt) and include only its plain-C++ headers")
          endif()
        endforeach()
        get_target_property(next "${item}" INTERFACE_LINK_LIBRARIES)
        if(next)
          list(APPEND todo ${next})
        endif()
      endwhile()
    endforeach()
  endforeach()
endfunction()
