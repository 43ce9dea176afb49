# Counts on the command line are whole numbers in range or a usage error that names them: no
# negative capacity falling back to the default, no 4294967297 wrapping around to 1, no
# std::bad_alloc for a capacity beyond the model's context, no trailing junk ignored.
# Usage: cmake -DKVW=path/to/kvw -P count_options.cmake

# Runs `kvw run` with the extra arguments; fails unless it exits with `code` and its stderr
# holds `quoted`.
function(expect_refused code quoted)
  execute_process(COMMAND ${KVW} run --model synthetic:tiny --prompt hi ${ARGN}
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  string(FIND "${err}" "${quoted}" at)
  if(NOT rc EQUAL code OR at EQUAL -1)
    message(FATAL_ERROR "kvw run ${ARGN}: exit ${rc}, expected ${code} and '${quoted}' in:\n${err}")
  endif()
endfunction()

expect_refused(1 "capacity 2000000000 rows per layer: beyond the model's context of 2048" --capacity 2000000000)
expect_refused(1 "capacity 4294967297 rows per layer" --capacity 4294967297)
expect_refused(2 "--capacity takes a whole number from 0 to 9223372036854775807, not '-5'" --capacity -5)
expect_refused(2 "--capacity takes a whole number" --capacity 99999999999999999999)
expect_refused(2 "--ticks takes a whole number from 0 to 2147483647, not '3x'" --ticks 3x)
expect_refused(2 "--ticks takes a whole number from 0 to 2147483647, not '4294967297'" --ticks 4294967297)
expect_refused(2 "--top-k takes a whole number from 0 to 2147483647, not '-1'" --top-k -1)
expect_refused(2 "--seed takes a whole number from 0 to 9223372036854775807, not '+3'" --seed +3)

# At the model's context the run goes ahead.
execute_process(COMMAND ${KVW} run --model synthetic:tiny --prompt hi --capacity 2048 --ticks 2
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_QUIET)
if(NOT rc EQUAL 0 OR NOT out MATCHES "pass")
  message(FATAL_ERROR "kvw run --capacity 2048 failed (${rc}):\n${out}")
endif()
message(STATUS "counts are checked and named")
