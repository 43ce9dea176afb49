# Runs `kvw bench decode` on the tiny synthetic model with small sizes: it must finish and print
# the ceiling line, one well-formed row per context length asked for on each of the default
# backends (the reference `cpu` and `cpu:fast`), and a ratio row per context for `cpu:fast`
# (format only: the figures are wall-clock and are not checked).
# Usage: cmake -DKVW=path/to/kvw -P bench_decode_runs.cmake
execute_process(
  COMMAND ${KVW} bench decode --model synthetic:tiny --contexts 40,8,24 --decode-tokens 2
          --threads 2
  OUTPUT_VARIABLE text RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kvw bench decode failed with ${rc}:\n${text}")
endif()
string(FIND "${text}" "memory read ceiling" at)
if(at LESS 0)
  message(FATAL_ERROR "no ceiling line in:\n${text}")
endif()
# type, backend, weights GB, resident GB, prefill tok/s, context, decode tok/s, GB/token, GB/s, %.
set(num "[0-9]+\\.[0-9]+")
foreach(context 8 24 40)
  foreach(backend cpu cpu:fast)
    string(REGEX MATCH
           "\ngguf F32 +${backend} +${num} +${num} +${num} +${context} +${num} +${num} +${num} +${num}%"
           row "${text}")
    if(row STREQUAL "")
      message(FATAL_ERROR "no row for context ${context} on ${backend} in:\n${text}")
    endif()
  endforeach()
  # type, backend, context, prefill and decode against cpu
  string(REGEX MATCH "\ngguf F32 +cpu:fast +${context} +${num}x +${num}x" row "${text}")
  if(row STREQUAL "")
    message(FATAL_ERROR "no ratio row for context ${context} in:\n${text}")
  endif()
endforeach()
# --model and --types together are refused.
execute_process(COMMAND ${KVW} bench decode --model synthetic:tiny --types f16
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(rc EQUAL 0)
  message(FATAL_ERROR "--model with --types was accepted")
endif()
