# `kvw fork TRACE --at N --out FILE` (ARCHITECTURE §16): the fork's state hash is the one the
# original trace recorded at tick N, its own trace ends at that tick and replays identically; a
# tick never reached and a trace whose recorded outcome differs fail with nothing written.
# Usage: cmake -DKVW=path/to/kvw -DWORK=dir -P fork_trace.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/actions.json "[{\"action\":\"delete\",\"pos\":2,\"layers\":[0,1]}]\n")
execute_process(
  COMMAND ${KVW} run --model synthetic:tiny --prompt "The cache remembers what it held" --ticks 10
          --temp 0.9 --seed 3 --actions ${WORK}/actions.json --trace ${WORK}/trace.ndjson
  OUTPUT_QUIET RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kvw run failed with ${rc}:\n${err}")
endif()

# The hash the run recorded at tick 6.
file(STRINGS ${WORK}/trace.ndjson lines)
set(recorded "")
foreach(line IN LISTS lines)
  if(line MATCHES "\"event\":\"tick\"" AND line MATCHES "\"tick\":6,"
     AND line MATCHES "\"state_hash\":\"([0-9a-f]+)\"")
    set(recorded ${CMAKE_MATCH_1})
  endif()
endforeach()
if(recorded STREQUAL "")
  message(FATAL_ERROR "no tick 6 in the trace")
endif()

execute_process(COMMAND ${KVW} fork ${WORK}/trace.ndjson --at 6 --out ${WORK}/fork.ndjson
                OUTPUT_VARIABLE out RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "forked at tick 6: .* state hash ${recorded}, written to")
  message(FATAL_ERROR "fork (${rc}) did not give the hash ${recorded} of tick 6:\n${out}${err}")
endif()
file(STRINGS ${WORK}/fork.ndjson fork_lines)
list(GET fork_lines -1 last)
if(NOT last MATCHES "\"event\":\"tick\"" OR NOT last MATCHES "\"tick\":6,")
  message(FATAL_ERROR "the fork's trace does not end at tick 6: ${last}")
endif()
execute_process(COMMAND ${KVW} replay ${WORK}/fork.ndjson
                OUTPUT_VARIABLE out RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0 OR NOT out MATCHES "0 mismatches: identical")
  message(FATAL_ERROR "the fork's trace does not replay (${rc}):\n${out}")
endif()

execute_process(COMMAND ${KVW} fork ${WORK}/trace.ndjson --at 50 --out ${WORK}/never.ndjson
                OUTPUT_QUIET RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "never reached tick 50" OR EXISTS ${WORK}/never.ndjson)
  message(FATAL_ERROR "a fork past the run's end was not refused (${rc}):\n${err}")
endif()

# A recorded hash altered before the fork's tick: refused, nothing written.
set(altered "")
foreach(line IN LISTS lines)
  if(line MATCHES "\"event\":\"tick\"" AND line MATCHES "\"tick\":4,")
    string(REGEX REPLACE "\"state_hash\":\"[0-9a-f]+\"" "\"state_hash\":\"0000000000000000\""
           line "${line}")
  endif()
  string(APPEND altered "${line}\n")
endforeach()
file(WRITE ${WORK}/altered.ndjson "${altered}")
execute_process(COMMAND ${KVW} fork ${WORK}/altered.ndjson --at 6 --out ${WORK}/bad.ndjson
                OUTPUT_VARIABLE out RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 1 OR NOT out MATCHES "tick: state_hash" OR EXISTS ${WORK}/bad.ndjson)
  message(FATAL_ERROR "an altered trace was forked (${rc}):\n${out}")
endif()
message(STATUS "fork at tick 6 has the recorded hash ${recorded} and replays")
