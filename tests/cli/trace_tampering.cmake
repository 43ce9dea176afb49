# A trace edited after `kvw run` wrote it, and files that are not traces at all (issue 26,
# items 5 and 6): every edited outcome of a tick makes `kvw replay` say DIFFERENT and exit 1; a
# header of another version is refused by name; "tick":"5" is a typed error naming the line
# and key, not nlohmann's type_error; a trace without state hashes warns; /dev/zero and a FIFO
# as trace or actions are refused at once (exit 1), naming the file.
# Usage: cmake -DKVW=path/to/kvw -DWORK=dir -P trace_tampering.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/actions.json "[{\"action\":\"delete\",\"pos\":2,\"layers\":[0,1]}]\n")
execute_process(
  COMMAND ${KVW} run --model synthetic:tiny --prompt "The cache remembers what it held" --ticks 8
          --policy pair-merge --temp 0.9 --seed 3 --actions ${WORK}/actions.json
          --trace ${WORK}/trace.ndjson
  OUTPUT_QUIET RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kvw run failed with ${rc}:\n${err}")
endif()
file(STRINGS ${WORK}/trace.ndjson lines)

# Writes the trace with `pattern` replaced by `replacement` in the event of tick 5 (or in the
# header when `where` is "header", in every line when "all"), as ${WORK}/${name}.ndjson.
function(edited name where pattern replacement)
  set(text "")
  set(n 0)
  foreach(line IN LISTS lines)
    if((where STREQUAL "header" AND n EQUAL 0) OR where STREQUAL "all"
       OR (where STREQUAL "tick5" AND line MATCHES "\"event\":\"tick\"" AND line MATCHES "\"tick\":5,"))
      string(REGEX REPLACE "${pattern}" "${replacement}" line "${line}")
    endif()
    string(APPEND text "${line}\n")
    math(EXPR n "${n} + 1")
  endforeach()
  file(WRITE ${WORK}/${name}.ndjson "${text}")
endfunction()

function(replay name)
  execute_process(COMMAND ${KVW} replay ${WORK}/${name}.ndjson
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 60)
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
  set(rc "${rc}" PARENT_SCOPE)
endfunction()

# Each recorded outcome of tick 5, edited alone: DIFFERENT, exit 1, the field named.
foreach(case
    "tick|\"tick\":5,|\"tick\":7,"
    "actions|\"action\":\"add\"|\"action\":\"ADD\""
    "result|\"actions_applied\":[0-9]+|\"actions_applied\":42"
    "invariants_pass|\"invariants_pass\":true|\"invariants_pass\":false")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 field)
  list(GET parts 1 pattern)
  list(GET parts 2 replacement)
  edited(${field} tick5 "${pattern}" "${replacement}")
  file(READ ${WORK}/${field}.ndjson text)
  file(READ ${WORK}/trace.ndjson original)
  if(text STREQUAL original)
    message(FATAL_ERROR "${field}: the edit changed nothing")
  endif()
  replay(${field})
  if(NOT rc EQUAL 1 OR NOT out MATCHES "tick: ${field} recorded" OR NOT out MATCHES "DIFFERENT")
    message(FATAL_ERROR "an edited ${field} replayed (${rc}):\n${out}${err}")
  endif()
endforeach()

edited(version99 header "\"kvw_trace\":1" "\"kvw_trace\":99")
replay(version99)
if(NOT rc EQUAL 1 OR NOT err MATCHES "line 1: header: kvw_trace 99 is a trace version this build does not read")
  message(FATAL_ERROR "a version 99 trace was not refused by name (${rc}):\n${out}${err}")
endif()

edited(tick_string tick5 "\"tick\":5," "\"tick\":\"5\",")
execute_process(COMMAND ${KVW} fork ${WORK}/tick_string.ndjson --at 6 --out ${WORK}/fork.ndjson
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 1 OR err MATCHES "type_error" OR NOT err MATCHES "tick_string.ndjson line [0-9]+: .*tick"
   OR EXISTS ${WORK}/fork.ndjson)
  message(FATAL_ERROR "fork on \"tick\":\"5\" (${rc}):\n${out}${err}")
endif()

edited(unhashed all ",\"state_hash\":\"[0-9a-f]+\"" "")
replay(unhashed)
if(NOT rc EQUAL 0 OR NOT err MATCHES "event\\(s\\) carry no state hash: their states are not checked"
   OR NOT out MATCHES "events without a state hash")
  message(FATAL_ERROR "a trace without state hashes replayed without a warning (${rc}):\n${out}${err}")
endif()

# Not regular files: refused at once, the file named.
execute_process(COMMAND ${KVW} replay /dev/zero
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 20)
if(NOT rc EQUAL 1 OR NOT err MATCHES "/dev/zero: is a character device, not a regular file")
  message(FATAL_ERROR "kvw replay /dev/zero (${rc}):\n${out}${err}")
endif()
execute_process(COMMAND ${KVW} run --model synthetic:tiny --prompt "The cache" --ticks 1
                        --actions /dev/zero
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 20)
if(NOT rc EQUAL 1 OR NOT err MATCHES "/dev/zero.*is a character device, not a regular file")
  message(FATAL_ERROR "kvw run --actions /dev/zero (${rc}):\n${out}${err}")
endif()
execute_process(COMMAND mkfifo ${WORK}/fifo RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mkfifo failed")
endif()
foreach(command "replay;${WORK}/fifo" "fork;${WORK}/fifo;--at;1;--out;${WORK}/f.ndjson"
        "run;--model;synthetic:tiny;--prompt;x;--ticks;1;--actions;${WORK}/fifo")
  execute_process(COMMAND ${KVW} ${command}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 20)
  if(NOT rc EQUAL 1 OR NOT err MATCHES "${WORK}/fifo.*is a FIFO, not a regular file")
    message(FATAL_ERROR "kvw ${command} (${rc}):\n${out}${err}")
  endif()
endforeach()
execute_process(COMMAND ${KVW} run --model ${WORK}/fifo --prompt x --ticks 1
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 20)
if(NOT rc EQUAL 3 OR NOT err MATCHES "is a FIFO, not a regular file")
  message(FATAL_ERROR "kvw run --model FIFO (${rc}):\n${out}${err}")
endif()
message(STATUS "edited traces are DIFFERENT, unknown versions and non-regular files refused")
