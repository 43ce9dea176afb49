# kv-workbench --trace FILE --bundle DIR, the command-line way to a session bundle: a trace
# recorded by `kvw run` (edits, a proposer, sampling) opened in the window and bundled. The
# bundle's trace must replay with no mismatch and end on the recorded run's last state hash;
# window.png and every view's CSV / JSON / PNG must be there. A malformed trace must fail with
# the file named and write nothing; so must a trace whose recorded token was edited, saying
# DIFFERENT as kvw replay does (it used to exit 0 with a clean regenerated trace in the bundle).
# Usage: cmake -DKVW=kvw -DWORKBENCH=kv-workbench -DWORK=dir -P trace_bundle.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/actions.json
  "[{\"action\":\"replace_pair\",\"original_pos1\":2,\"original_pos2\":3,\"new_token_ids\":[100,7]},\n"
  " {\"action\":\"delete\",\"pos\":1,\"layers\":[2,3]}]\n")
execute_process(
  COMMAND ${KVW} run --model synthetic:tiny --prompt "The cache remembers what it held" --ticks 8
          --policy pair-merge --temp 0.9 --seed 3 --actions ${WORK}/actions.json
          --trace ${WORK}/run.ndjson
  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kvw run failed with ${rc}")
endif()

set(ENV{QT_QPA_PLATFORM} offscreen)
execute_process(COMMAND ${WORKBENCH} --trace ${WORK}/run.ndjson --bundle ${WORK}/bundle
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kv-workbench --trace --bundle failed with ${rc}:\n${out}\n${err}")
endif()
file(GLOB csvs ${WORK}/bundle/*.csv)
list(LENGTH csvs n_csv)
if(n_csv LESS 5)
  message(FATAL_ERROR "the bundle holds ${n_csv} CSV files, expected one per view")
endif()
foreach(csv IN LISTS csvs)
  string(REGEX REPLACE "\\.csv$" "" stem "${csv}")
  if(NOT EXISTS ${stem}.json OR NOT EXISTS ${stem}.png)
    message(FATAL_ERROR "${stem}: CSV without its JSON or PNG")
  endif()
endforeach()
if(NOT EXISTS ${WORK}/bundle/window.png OR NOT EXISTS ${WORK}/bundle/trace.ndjson)
  message(FATAL_ERROR "the bundle lacks window.png or trace.ndjson")
endif()

execute_process(COMMAND ${KVW} replay ${WORK}/bundle/trace.ndjson
                OUTPUT_VARIABLE replay_out RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0 OR NOT replay_out MATCHES "0 mismatches: identical")
  message(FATAL_ERROR "the bundle's trace does not replay (${rc}):\n${replay_out}")
endif()
# The last recorded state hash of each trace: the bundle is the recorded run's end state.
foreach(which run bundle/trace)
  file(STRINGS ${WORK}/${which}.ndjson lines REGEX "\"state_hash\":\"[0-9a-f]+\"")
  list(GET lines -1 last)
  string(REGEX MATCH "\"state_hash\":\"[0-9a-f]+\"" hash_${which} "${last}")
endforeach()
if(NOT hash_run STREQUAL hash_bundle/trace)
  message(FATAL_ERROR "bundle ends on ${hash_bundle/trace}, the run on ${hash_run}")
endif()

file(WRITE ${WORK}/bad.ndjson "{\"event\":\"header\"\n")
execute_process(COMMAND ${WORKBENCH} --trace ${WORK}/bad.ndjson --bundle ${WORK}/bad_bundle
                OUTPUT_QUIET ERROR_VARIABLE err RESULT_VARIABLE rc)
if(rc EQUAL 0 OR NOT err MATCHES "bad.ndjson" OR EXISTS ${WORK}/bad_bundle)
  message(FATAL_ERROR "a malformed trace gave ${rc}, wrote a bundle or did not name the file:\n${err}")
endif()

# The token sampled at tick 3, edited: the replay differs, so no bundle and exit 1.
file(STRINGS ${WORK}/run.ndjson lines)
set(edited "")
foreach(line IN LISTS lines)
  if(line MATCHES "\"event\":\"tick\"" AND line MATCHES "\"tick\":3,")
    # The event's own token, its last key (the add action in "actions" has one too).
    string(REGEX MATCH "\"token\":([0-9]+)}$" token "${line}")
    math(EXPR other "${CMAKE_MATCH_1} + 1")
    string(REGEX REPLACE "\"token\":[0-9]+}$" "\"token\":${other}}" line "${line}")
  endif()
  string(APPEND edited "${line}\n")
endforeach()
file(WRITE ${WORK}/edited.ndjson "${edited}")
execute_process(COMMAND ${WORKBENCH} --trace ${WORK}/edited.ndjson --bundle ${WORK}/edited_bundle
                OUTPUT_QUIET ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 1 OR NOT err MATCHES "DIFFERENT" OR NOT err MATCHES "tick token"
   OR EXISTS ${WORK}/edited_bundle)
  message(FATAL_ERROR "an edited trace gave ${rc}, wrote a bundle or did not say DIFFERENT:\n${err}")
endif()
