# kvw run and kvw replay fail early and plainly: a trace path that cannot be written stops the
# run before it starts (exit 1, no tick printed); a full cache stops the run at the first refused
# tick (exit 1, no tick number printed twice); an unknown --policy and an unknown --rope are both
# usage errors (exit 2); replaying with another model than the trace's warns; --help of run and
# replay is help, not an unknown option.
# Usage: cmake -DKVW=path/to/kvw -DWORK=dir -P run_failures.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(RUN ${KVW} run --model synthetic:tiny --prompt "The cache" --quiet)

function(expect_rc rc expected what out err)
  if(NOT rc EQUAL ${expected})
    message(FATAL_ERROR "${what}: exit ${rc}, expected ${expected}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
endfunction()

execute_process(COMMAND ${RUN} --ticks 2 --trace ${WORK}/no/such/dir/trace.ndjson
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
expect_rc(${rc} 1 "unwritable trace" "${out}" "${err}")
if(NOT out STREQUAL "" OR NOT err MATCHES "cannot write ${WORK}/no/such/dir/trace.ndjson: No such file or directory")
  message(FATAL_ERROR "unwritable trace: ran anyway or did not say why:\n${out}\n${err}")
endif()

# The prompt fills 5 rows (BOS and 4 tokens); 7 rows hold two more ticks, the third is refused.
execute_process(COMMAND ${RUN} --ticks 6 --capacity 7
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
expect_rc(${rc} 1 "full cache" "${out}" "${err}")
if(NOT err MATCHES "the cache is full \\(7 rows per layer\\): stopped after 2 of 6 ticks")
  message(FATAL_ERROR "full cache: no reason on stderr:\n${err}")
endif()
string(REGEX MATCHALL "\n +[0-9]+ +[0-9]+ " ticks "${out}")
list(LENGTH ticks done)
string(REGEX MATCHALL "\n +- +[0-9]+ +[0-9]+ +[0-9]+ +rejected" refused "${out}")
list(LENGTH refused refused)
if(NOT done EQUAL 2 OR NOT refused EQUAL 1)
  message(FATAL_ERROR "full cache: expected ticks 1, 2 and one refused '-' row:\n${out}")
endif()

foreach(option policy rope)
  execute_process(COMMAND ${RUN} --ticks 1 --${option} no-such-name
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  expect_rc(${rc} 2 "unknown --${option}" "${out}" "${err}")
  if(NOT err MATCHES "--${option} takes ")
    message(FATAL_ERROR "unknown --${option}: the choices are not named:\n${err}")
  endif()
endforeach()

execute_process(COMMAND ${RUN} --ticks 2 --trace ${WORK}/trace.ndjson
                OUTPUT_QUIET ERROR_VARIABLE err RESULT_VARIABLE rc)
expect_rc(${rc} 0 "run with a trace" "" "${err}")
execute_process(COMMAND ${KVW} replay ${WORK}/trace.ndjson --model synthetic:tiny
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
expect_rc(${rc} 0 "replay with the same model" "${out}" "${err}")
if(err MATCHES "recorded with the model")
  message(FATAL_ERROR "replay warned about the model it was recorded with:\n${err}")
endif()
execute_process(COMMAND ${KVW} replay ${WORK}/trace.ndjson --model synthetic:other
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT err MATCHES "recorded with the model synthetic:tiny, replayed with synthetic:other")
  message(FATAL_ERROR "replay with another model did not warn (exit ${rc}):\n${err}")
endif()

foreach(command run replay)
  execute_process(COMMAND ${KVW} ${command} --help
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  expect_rc(${rc} 0 "${command} --help" "${out}" "${err}")
  if(NOT out MATCHES "usage: kvw ${command}")
    message(FATAL_ERROR "${command} --help printed no usage:\n${out}")
  endif()
endforeach()
message(STATUS "run and replay fail early, plainly, with the documented exit codes")
