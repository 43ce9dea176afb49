# `kvw run` records a trace of ticks with injected edits and the pair-merge proposer; `kvw replay`
# must reproduce every state hash, and must report a trace whose recorded hash was altered. The
# trace names the backend `auto` chose; replayed with --backend on one of other numerics (the
# reference `cpu` for a trace on `cpu:fast`), the replay checks the tokens and says that the
# state hashes were not compared, so the altered one goes unseen. (Other numbers may sample
# other tokens from the tiny model's nearly flat distributions: then each is reported.)
# Usage: cmake -DKVW=path/to/kvw -DWORK=dir -P run_and_replay.cmake
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/actions.json
  "[{\"action\":\"replace_pair\",\"original_pos1\":3,\"original_pos2\":4,\"new_token_ids\":[100,7]},\n"
  " {\"action\":\"delete\",\"pos\":1,\"layers\":[2,3]}]\n")
execute_process(
  COMMAND ${KVW} run --model synthetic:tiny --prompt "The cache remembers what it held" --ticks 10
          --policy pair-merge --temp 0.9 --top-p 0.95 --seed 5 --actions ${WORK}/actions.json
          --layout batch_splice --trace ${WORK}/trace.ndjson
  OUTPUT_VARIABLE run_out RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kvw run failed with ${rc}:\n${run_out}")
endif()
if(run_out MATCHES "FAIL")
  message(FATAL_ERROR "an invariant failed during the run:\n${run_out}")
endif()

execute_process(COMMAND ${KVW} replay ${WORK}/trace.ndjson
                OUTPUT_VARIABLE replay_out RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0 OR NOT replay_out MATCHES "0 mismatches: identical")
  message(FATAL_ERROR "replay differs (${rc}):\n${replay_out}")
endif()

# Alter the hash recorded after the fifth tick: replay must name that line.
file(STRINGS ${WORK}/trace.ndjson lines)
set(out "")
set(altered 0)
set(n 0)
foreach(line IN LISTS lines)
  math(EXPR n "${n} + 1")
  if(line MATCHES "\"event\":\"tick\"" AND line MATCHES "\"tick\":5,")
    string(REGEX REPLACE "\"state_hash\":\"[0-9a-f]+\"" "\"state_hash\":\"0000000000000000\"" line "${line}")
    set(altered ${n})
  endif()
  string(APPEND out "${line}\n")
endforeach()
if(altered EQUAL 0)
  message(FATAL_ERROR "no tick 5 in the trace")
endif()
file(WRITE ${WORK}/altered.ndjson "${out}")
execute_process(COMMAND ${KVW} replay ${WORK}/altered.ndjson
                OUTPUT_VARIABLE bad_out RESULT_VARIABLE rc ERROR_QUIET)
if(rc EQUAL 0 OR NOT bad_out MATCHES "altered.ndjson:${altered}: tick: state_hash")
  message(FATAL_ERROR "altered trace not reported at line ${altered} (${rc}):\n${bad_out}")
endif()

file(STRINGS ${WORK}/trace.ndjson header LIMIT_COUNT 1)
if(NOT header MATCHES "\"backend\":\"([^\"]+)\"" OR CMAKE_MATCH_1 STREQUAL "auto")
  message(FATAL_ERROR "the header does not name the backend the run resolved:\n${header}")
endif()
set(recorded ${CMAKE_MATCH_1})
if(recorded STREQUAL "cpu:fast")
  execute_process(COMMAND ${KVW} replay ${WORK}/altered.ndjson --backend cpu
                  OUTPUT_VARIABLE other_out ERROR_VARIABLE other_err RESULT_VARIABLE rc)
  if(NOT other_out MATCHES "not its state hashes: recorded on cpu:fast \\(cpu:fast[-+a-z0-9]* numbers\\), replayed on cpu \\(cpu numbers here\\)"
     OR other_out MATCHES "tick: state_hash" OR NOT other_err MATCHES "cpu:fast")
    message(FATAL_ERROR "replay --backend cpu of a cpu:fast trace (${rc}):\n${other_out}\n${other_err}")
  endif()
  if(NOT (rc EQUAL 0 AND other_out MATCHES "0 mismatches: identical")
     AND NOT (NOT rc EQUAL 0 AND other_out MATCHES "tick: token\n? *recorded [0-9]+, replayed [0-9]+"))
    message(FATAL_ERROR "replay --backend cpu of a cpu:fast trace compared no tokens (${rc}):\n${other_out}")
  endif()
endif()
message(STATUS "replay identical; altered line ${altered} reported; recorded on ${recorded}")
