# Instrumented builds, set by the presets (CMakePresets.json) rather than by hand:
#   KVW_SANITIZE=address,undefined  every target compiled and linked with those sanitizers
#                                   (dev-asan); a report aborts the program (no recovery), so a
#                                   test that triggers one fails.
#   KVW_FUZZ=ON                     clang only: coverage instrumentation for libFuzzer on every
#                                   target, and the fuzz_NAME binaries of tests/fuzz (fuzz).
set(KVW_SANITIZE "" CACHE STRING "Sanitizers for every target, e.g. address,undefined (empty: none)")
option(KVW_FUZZ "Build the libFuzzer binaries of tests/fuzz (clang only)" OFF)

if(KVW_SANITIZE)
  add_compile_options(-fsanitize=${KVW_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${KVW_SANITIZE})
endif()

if(KVW_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "KVW_FUZZ needs clang (libFuzzer); configure with the fuzz preset")
  endif()
  if(NOT KVW_BUILD_TESTS)
    message(FATAL_ERROR "KVW_FUZZ builds tests/fuzz: it needs KVW_BUILD_TESTS=ON")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
