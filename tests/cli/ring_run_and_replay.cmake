# `kvw run --layout ring` past its size (overwrites every tick, sinks kept, guard and checksum
# on, an injected delete, decode blocks of 2 tokens a tick) records a trace whose tick events
# carry the ring's pointer and each block's tokens; `kvw replay` must reproduce every state hash
# and block. `kvw bench ring` runs its table on a small ring.
# Usage: cmake -DKVW=path/to/kvw -DWORK=dir -P ring_run_and_replay.cmake
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/actions.json "[{\"action\":\"delete\",\"pos\":5}]\n")
foreach(mode roll pointer lut)
  execute_process(
    COMMAND ${KVW} run --model synthetic:tiny --prompt "The ring keeps the newest rows" --ticks 24
            --temp 0.9 --seed 3 --actions ${WORK}/actions.json --layout ring --ring-mode ${mode}
            --ring-size 16 --ring-sinks 2 --tokens-per-frame 2 --ring-checksum --k-type bf16
            --v-type fp8 --trace ${WORK}/${mode}.ndjson
    OUTPUT_VARIABLE run_out RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0 OR run_out MATCHES "FAIL")
    message(FATAL_ERROR "kvw run --ring-mode ${mode} failed (${rc}):\n${run_out}")
  endif()
  file(READ ${WORK}/${mode}.ndjson trace)
  if(NOT trace MATCHES "\"ring\":\\[{" OR NOT trace MATCHES "\"mode\":\"${mode}\"")
    message(FATAL_ERROR "${mode}: the trace has no ring header or ring tick fields")
  endif()
  # --tokens-per-frame 2: every tick decodes a block of two tokens (block decoding).
  if(NOT trace MATCHES "\"tokens\":\\[[0-9]+,[0-9]+\\]")
    message(FATAL_ERROR "${mode}: the ticks did not decode blocks of 2 tokens")
  endif()
  execute_process(COMMAND ${KVW} replay ${WORK}/${mode}.ndjson
                  OUTPUT_VARIABLE replay_out RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0 OR NOT replay_out MATCHES "0 mismatches: identical")
    message(FATAL_ERROR "${mode}: replay differs (${rc}):\n${replay_out}")
  endif()
endforeach()
execute_process(COMMAND ${KVW} bench ring --size 64 --frames 1,16 --updates 20
                OUTPUT_VARIABLE bench_out RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0 OR NOT bench_out MATCHES "lut +16")
  message(FATAL_ERROR "kvw bench ring failed (${rc}):\n${bench_out}")
endif()
message(STATUS "ring runs replay identical in every mode; bench ring ran")
