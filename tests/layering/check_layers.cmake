# The tree's rules (docs/architecture.md), checked on the sources:
#   cmake -DSRC=<source dir> -DRULE=<rule> -P tests/layering/check_layers.cmake
# RULE is one of
#   layers      an engine file includes only headers of its own folder or of a folder below it:
#               no include goes up a layer, so no cycle between folders. Each folder of engine/
#               is one library and one layer; there is no exception.
#   internal    a header under <library>/internal/ is the library's own: only the library's files
#               and its tests (tests/engine/<library>/) include it. The CLI, the window and the
#               other libraries include only the public headers (the ones outside internal/).
#   namespaces  every file of engine/<x>/ defines its names in pha::<x> (or a namespace inside
#               it); app/cli in pha::cli, app/gui in pha::gui, widgets in pha::widgets, kernels in
#               pha::kernels; tests/engine/<x>/ in pha::<x> when it opens a pha namespace. A block
#               of another pha namespace may only forward-declare (`class Store;`); the tests'
#               shared helpers (tests/*.h and fixtures) are pha::test.
#   window      the window's feature libraries (app/gui/<feature>/, one library each) include one
#               another only downwards in `window_order` (so no cycle between them); the main
#               window (app/gui/*.cpp) and its checks sit on top; every include of the window's
#               and the widgets' own headers names its folder ("gui/queue/run_queue.h",
#               "widgets/curve_plot.h"), never a bare file name.
# Fails (exit 1) naming each file and what breaks the rule.
set(order kernels core device model data store analysis search project nn distributed runtime search_runner queue)
set(window_order project monitor config queue runs compare lens report inference generate search)

if(NOT RULE MATCHES "^(layers|internal|namespaces|window)$")
  message(FATAL_ERROR "RULE must be layers, internal, namespaces or window (got '${RULE}')")
endif()

function(library_of path out)  # the engine library a source path belongs to, or ""
  set(lib "")
  if(path MATCHES "^kernels/")
    set(lib kernels)
  elseif(path MATCHES "^engine/([a-z_]+)/")
    set(lib ${CMAKE_MATCH_1})
  endif()
  set(${out} ${lib} PARENT_SCOPE)
endfunction()

function(include_library inc out)  # the library of an #include "..." path, or "" when none
  set(lib "")
  if(inc MATCHES "^common/")
    set(lib kernels)
  elseif(inc MATCHES "^([a-z_]+)/")
    list(FIND order "${CMAKE_MATCH_1}" i)
    if(i GREATER -1)
      set(lib ${CMAKE_MATCH_1})
    endif()
  endif()
  set(${out} ${lib} PARENT_SCOPE)
endfunction()

function(quoted_includes file out)  # the paths of a file's #include "..." lines
  file(STRINGS ${SRC}/${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  set(paths "")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" inc "${line}")
    list(APPEND paths "${inc}")
  endforeach()
  set(${out} ${paths} PARENT_SCOPE)
endfunction()

set(bad 0)
set(checked 0)

macro(drop_fixtures)  # the checks' own test trees (tests/layering/fixtures) break the rules on purpose
  list(FILTER files EXCLUDE REGEX "^tests/layering/fixtures/")
endmacro()

if(RULE STREQUAL "layers")
  file(GLOB_RECURSE files RELATIVE ${SRC} ${SRC}/engine/*.h ${SRC}/engine/*.cpp ${SRC}/kernels/*.h
       ${SRC}/kernels/*.cpp ${SRC}/kernels/*.cu ${SRC}/kernels/*.cuh)
  foreach(f IN LISTS files)
    library_of(${f} mine)
    list(FIND order "${mine}" my_rank)
    if(my_rank EQUAL -1)
      message(NOTICE "error: ${f}: its folder is not a library of the engine; add it to tests/layering/check_layers.cmake and docs/architecture.md")
      math(EXPR bad "${bad} + 1")
      continue()
    endif()
    quoted_includes(${f} incs)
    foreach(inc IN LISTS incs)
      include_library("${inc}" theirs)
      if(theirs STREQUAL "")
        continue()
      endif()
      list(FIND order "${theirs}" their_rank)
      math(EXPR checked "${checked} + 1")
      if(their_rank GREATER my_rank)
        message(NOTICE "error: ${f} (layer ${mine}) includes \"${inc}\" from the layer above it, ${theirs}")
        math(EXPR bad "${bad} + 1")
      endif()
    endforeach()
  endforeach()
  list(LENGTH files n)
  if(bad GREATER 0)
    message(FATAL_ERROR "${bad} include(s) go up a layer (of ${checked} checked in ${n} files)")
  endif()
  message(STATUS "layers hold: ${checked} includes between layers in ${n} files, none upwards")

elseif(RULE STREQUAL "internal")
  file(GLOB_RECURSE files RELATIVE ${SRC} ${SRC}/engine/*.h ${SRC}/engine/*.cpp ${SRC}/kernels/*.h
       ${SRC}/kernels/*.cpp ${SRC}/kernels/*.cu ${SRC}/kernels/*.cuh ${SRC}/app/*.h ${SRC}/app/*.cpp
       ${SRC}/widgets/*.h ${SRC}/widgets/*.cpp ${SRC}/tests/*.h ${SRC}/tests/*.cpp)
  drop_fixtures()
  foreach(f IN LISTS files)
    library_of(${f} mine)
    if(f MATCHES "^tests/engine/([a-z_]+)/")
      set(mine ${CMAKE_MATCH_1})  # a library's tests may include its internal headers
    endif()
    file(STRINGS ${SRC}/${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"[a-z_]+/internal/")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" inc "${line}")
      string(REGEX REPLACE "/.*" "" theirs "${inc}")
      math(EXPR checked "${checked} + 1")
      if(NOT theirs STREQUAL mine)
        message(NOTICE "error: ${f} includes \"${inc}\", an internal header of ${theirs}; include one of ${theirs}'s public headers (engine/${theirs}/*.h outside internal/)")
        math(EXPR bad "${bad} + 1")
      endif()
    endforeach()
  endforeach()
  list(LENGTH files n)
  if(bad GREATER 0)
    message(FATAL_ERROR "${bad} include(s) of another library's internal header (in ${n} files)")
  endif()
  message(STATUS "internal headers stay inside: ${checked} includes of internal headers in ${n} files, each from its own library")

elseif(RULE STREQUAL "namespaces")
  file(GLOB_RECURSE files RELATIVE ${SRC} ${SRC}/engine/*.h ${SRC}/engine/*.cpp ${SRC}/kernels/*.h
       ${SRC}/kernels/*.cpp ${SRC}/kernels/*.cu ${SRC}/kernels/*.cuh ${SRC}/app/*.h ${SRC}/app/*.cpp
       ${SRC}/widgets/*.h ${SRC}/widgets/*.cpp ${SRC}/tests/*.h ${SRC}/tests/*.cpp)
  drop_fixtures()
  foreach(f IN LISTS files)
    set(want "")
    if(f MATCHES "^(engine|tests/engine)/([a-z_]+)/")
      set(want pha::${CMAKE_MATCH_2})
    elseif(f MATCHES "^kernels/")
      set(want pha::kernels)
    elseif(f MATCHES "^(app|tests/app)/(cli|gui)/")
      set(want pha::${CMAKE_MATCH_2})
    elseif(f MATCHES "^(widgets|tests/widgets)/")
      set(want pha::widgets)
    elseif(f MATCHES "^tests/kernels/")
      set(want pha::kernels)
    endif()
    if(want STREQUAL "" OR f MATCHES "/generated/")
      continue()
    endif()
    file(READ ${SRC}/${f} text)
    string(REGEX REPLACE "//[^\n]*" "" text "${text}")  # comments may name other namespaces
    string(REPLACE ";" "<semicolon>" text "${text}")      # a CMake list separator otherwise
    string(REPLACE "[" "<" text "${text}")
    string(REPLACE "]" ">" text "${text}")
    string(REGEX MATCHALL "namespace[ \t]+pha[a-z_:]*[ \t\n]*{[^}]*" blocks "${text}")
    foreach(block IN LISTS blocks)
      string(REGEX REPLACE "^namespace[ \t]+(pha[a-z_:]*).*" "\\1" ns "${block}")
      math(EXPR checked "${checked} + 1")
      if(ns STREQUAL want OR ns MATCHES "^${want}::")
        continue()
      endif()
      if(f MATCHES "^tests/" AND ns STREQUAL "pha::test")
        continue()  # the tests' shared helpers (tests/*.h: busy loops, temp dirs, fixtures)
      endif()
      # another library's namespace: only forward declarations (`class Store;`) may be here
      string(REGEX REPLACE "^namespace[ \t]+pha[a-z_:]*[ \t\n]*{" "" body "${block}")
      string(REGEX REPLACE "(class|struct)[ \t]+[A-Za-z_0-9]+[ \t]*<semicolon>" "" body "${body}")
      string(STRIP "${body}" body)
      if(NOT body STREQUAL "")
        message(NOTICE "error: ${f} defines names in ${ns}; its folder's namespace is ${want}")
        math(EXPR bad "${bad} + 1")
      endif()
    endforeach()
  endforeach()
  list(LENGTH files n)
  if(bad GREATER 0)
    message(FATAL_ERROR "${bad} namespace block(s) differ from their folder (in ${n} files)")
  endif()
  message(STATUS "namespaces follow folders: ${checked} pha namespace blocks in ${n} files")
elseif(RULE STREQUAL "window")
  file(GLOB_RECURSE files RELATIVE ${SRC} ${SRC}/app/gui/*.h ${SRC}/app/gui/*.cpp ${SRC}/widgets/*.h ${SRC}/widgets/*.cpp)
  list(LENGTH window_order top)  # the main window and its checks: above every feature
  foreach(f IN LISTS files)
    set(my_rank -1)
    if(f MATCHES "^app/gui/([a-z_]+)/")
      if(CMAKE_MATCH_1 STREQUAL "checks")
        set(my_rank ${top})
      else()
        list(FIND window_order "${CMAKE_MATCH_1}" my_rank)
        if(my_rank EQUAL -1)
          message(NOTICE "error: ${f}: app/gui/${CMAKE_MATCH_1} is not a library of the window; add it to window_order in tests/layering/check_layers.cmake and docs/architecture.md")
          math(EXPR bad "${bad} + 1")
          continue()
        endif()
      endif()
    elseif(f MATCHES "^app/gui/")
      set(my_rank ${top})
    endif()
    quoted_includes(${f} incs)
    foreach(inc IN LISTS incs)
      math(EXPR checked "${checked} + 1")
      if(NOT inc MATCHES "/")
        message(NOTICE "error: ${f} includes \"${inc}\" without its folder (gui/<feature>/ or widgets/)")
        math(EXPR bad "${bad} + 1")
      elseif(inc MATCHES "^gui/([a-z_]+)/" AND my_rank GREATER -1)
        list(FIND window_order "${CMAKE_MATCH_1}" their_rank)
        if(their_rank GREATER my_rank)
          message(NOTICE "error: ${f} includes \"${inc}\" from the window library above it, ${CMAKE_MATCH_1}")
          math(EXPR bad "${bad} + 1")
        endif()
      elseif(inc MATCHES "^gui/[^/]+$" AND NOT my_rank EQUAL top)
        message(NOTICE "error: ${f} includes the main window's \"${inc}\"; a feature library is below it")
        math(EXPR bad "${bad} + 1")
      endif()
    endforeach()
  endforeach()
  list(LENGTH files n)
  if(bad GREATER 0)
    message(FATAL_ERROR "${bad} window include(s) break the window's order or name no folder (of ${checked} in ${n} files)")
  endif()
  message(STATUS "the window's libraries include downwards only, with folders: ${checked} includes in ${n} files")
endif()
