# Compiler settings for our own targets only (no global flags).
if(PHA_USE_CCACHE)
  find_program(PHA_CCACHE ccache)
  if(PHA_CCACHE)
    set(CMAKE_CXX_COMPILER_LAUNCHER "${PHA_CCACHE}")
    set(CMAKE_CUDA_COMPILER_LAUNCHER "${PHA_CCACHE}")
  endif()
endif()

# pha_set_warnings(target): warnings on for our code; torch/Qt come in as system headers.
function(pha_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-unused-parameter>)
endfunction()

option(PHA_SANITIZE "Build our targets with AddressSanitizer + UndefinedBehaviorSanitizer" OFF)
if(PHA_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
