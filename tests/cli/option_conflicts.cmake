# kvw run refuses settings that cannot hold together before it runs a tick, naming both options
# (issue 26 item 3: they used to run with invariants failing on every tick and exit 0), and a run
# whose invariants failed exits 1 saying after how many ticks and which. int8 K/V with wLOD
# holds (incremental == full at the storage's rounding) and exits 0.
# Usage: cmake -DKVW=path/to/kvw -DWORK=dir -P option_conflicts.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(RUN ${KVW} run --model synthetic:tiny --prompt "The cache" --quiet)

# refused(WHAT RC FIRST SECOND ARGS...): exit RC, stderr names --FIRST and --SECOND (as FIRST
# and SECOND), no tick ran, the trace asked for was not written.
function(refused what rc first second)
  file(REMOVE ${WORK}/trace.ndjson)
  execute_process(COMMAND ${RUN} ${ARGN} --trace ${WORK}/trace.ndjson
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
  if(NOT code EQUAL ${rc})
    message(FATAL_ERROR "${what}: exit ${code}, expected ${rc}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  string(FIND "${err}" "${first}" at_first)
  string(FIND "${err}" "${second}" at_second)
  if(at_first EQUAL -1 OR at_second EQUAL -1)
    message(FATAL_ERROR "${what}: the refusal does not name ${first} and ${second}:\n${err}")
  endif()
  if(NOT out STREQUAL "" OR EXISTS ${WORK}/trace.ndjson)
    message(FATAL_ERROR "${what}: ran anyway or wrote the trace:\n${out}")
  endif()
endfunction()

set(H2O --policy h2o --sink 2 --budget 4 --window 4 --layout ring)
refused("ring below S+B+W" 1 ring-size budget ${H2O} --ring-size 9 --ticks 3)
refused("blocks of 2 under h2o" 1 tokens-per-frame policy ${H2O} --ring-size 32
        --tokens-per-frame 2 --ticks 3)
refused("blocks of 2 under focus" 1 tokens-per-frame policy --policy focus --wlod-k 4
        --wlod-max 40 --layout ring --ring-size 64 --tokens-per-frame 2 --ticks 3)
refused("focus under W_max 1" 1 policy wlod-max --policy focus --wlod-k 4 --wlod-max 1 --ticks 3)

# The ring of exactly S + B + W never overwrites: it holds, with fewer ring sinks than policy
# sinks too.
execute_process(COMMAND ${RUN} ${H2O} --ring-size 10 --ring-sinks 0 --ticks 30
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR out MATCHES "FAIL")
  message(FATAL_ERROR "ring of S+B+W: exit ${rc}\n${out}\n${err}")
endif()

execute_process(COMMAND ${RUN} --k-type int8 --v-type int8 --wlod-k 4 --wlod-max 40 --ticks 60
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR out MATCHES "FAIL")
  message(FATAL_ERROR "int8 K/V with wLOD: exit ${rc}\n${out}\n${err}")
endif()

# A hand-deleted policy sink: every tick fails budget_rows and sinks_first; the run goes on to
# the end (the trace shows each tick) and then exits 1 saying so.
file(WRITE ${WORK}/delete_sink.json "[{\"action\":\"delete\",\"pos\":1}]")
execute_process(COMMAND ${RUN} --prompt "The cache is" --policy streaming-llm --sink 2 --budget 2
                        --window 2 --actions ${WORK}/delete_sink.json --ticks 3
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 1 OR NOT err MATCHES
   "invariants failed after 3 of 3 ticks: budget_rows \\(3\\), sinks_first \\(3\\)")
  message(FATAL_ERROR "failing invariants: exit ${rc}, expected 1 and a count\n${out}\n${err}")
endif()
message(STATUS "kvw run refuses settings that cannot hold and fails a run whose invariants fail")
