# Runs `kvw generate` on the embedded model twice with one seed and once with another:
# the same seed must print the same tokens, another seed different ones (sampling on).
# Usage: cmake -DKVW=path/to/kvw -P generate_is_deterministic.cmake
function(generate seed out)
  execute_process(
    COMMAND ${KVW} generate --model synthetic:tiny --prompt "The cache remembers" -n 24
            --seed ${seed} --temp 0.9 --top-p 0.95 --ignore-eos --backend cpu
    OUTPUT_VARIABLE text RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "kvw generate --seed ${seed} failed with ${rc}")
  endif()
  string(REGEX MATCH "generated ids:[ 0-9]+" ids "${text}")
  if(ids STREQUAL "")
    message(FATAL_ERROR "no 'generated ids:' line in:\n${text}")
  endif()
  set(${out} "${ids}" PARENT_SCOPE)
endfunction()

generate(7 first)
generate(7 second)
generate(8 other)
if(NOT first STREQUAL second)
  message(FATAL_ERROR "same seed, different tokens:\n${first}\n${second}")
endif()
if(first STREQUAL other)
  message(FATAL_ERROR "seeds 7 and 8 gave the same tokens: ${first}")
endif()
message(STATUS "deterministic: ${first}")
