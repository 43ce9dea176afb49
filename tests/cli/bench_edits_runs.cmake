# Runs `kvw bench edits` on the embedded tiny model with small sizes: it must finish, print a
# row for every layout and the torch.cat baseline at both positions, and report the byte
# counts the layouts exist for (deterministic, unlike the times): for a replace in the middle,
# batch-splice moves fewer bytes than contiguous, and indirection fewer still.
# Usage: cmake -DKVW=path/to/kvw -P bench_edits_runs.cmake
execute_process(
  COMMAND ${KVW} bench edits --model synthetic:tiny --rows 64 --prefill-rows 16 --reps 3
          --full-reps 1
  OUTPUT_VARIABLE text RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kvw bench edits failed with ${rc}:\n${text}")
endif()
foreach(name contiguous batch_splice indirection "torch.cat copy")
  string(REGEX MATCHALL "\n  ${name} +[0-9]" rows "${text}")
  list(LENGTH rows n)
  if(NOT n EQUAL 2)
    message(FATAL_ERROR "expected 2 movement rows for ${name}, found ${n} in:\n${text}")
  endif()
endforeach()
foreach(needle "rebuild_from_mirror" "recompute_suffix")
  string(FIND "${text}" "${needle}" at)
  if(at LESS 0)
    message(FATAL_ERROR "no ${needle} line in:\n${text}")
  endif()
endforeach()

# The MB moved column (the third number) of a layout's first row, the replace in the middle.
function(mb_moved name out)
  string(REGEX MATCH "\n  ${name} +[0-9.]+ +[0-9.]+ +([0-9.]+)" row "${text}")
  set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()
mb_moved(contiguous contiguous)
mb_moved(batch_splice batch)
mb_moved(indirection indirection)
if(NOT batch LESS contiguous OR NOT indirection LESS batch)
  message(FATAL_ERROR "MB moved per edit: contiguous ${contiguous}, batch_splice ${batch}, "
                      "indirection ${indirection}; expected strictly decreasing:\n${text}")
endif()
message(STATUS "MB moved per edit: contiguous ${contiguous}, batch_splice ${batch}, "
               "indirection ${indirection}")
