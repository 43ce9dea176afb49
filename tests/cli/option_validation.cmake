# Options are checked before any work (issue 26 item 8): a number that is not finite or out of
# range, an option the other settings would ignore, and an output path that cannot be written
# are refused naming the option (and what it needs), with nothing run and nothing written.
# Usage: cmake -DKVW=path/to/kvw -DWORK=dir -P option_validation.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(MODEL --model synthetic:tiny)
set(RUN ${KVW} run ${MODEL} --prompt "The cache" --quiet --ticks 2)

# refused(WHAT RC PATTERN COMMAND...): exit RC, stderr matches PATTERN, stdout empty (no tick,
# no result), and nothing new in WORK but what the test put there.
function(refused what rc pattern)
  file(GLOB before LIST_DIRECTORIES true ${WORK}/*)
  execute_process(COMMAND ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
  file(GLOB after LIST_DIRECTORIES true ${WORK}/*)
  if(NOT code EQUAL ${rc} OR NOT err MATCHES "${pattern}")
    message(FATAL_ERROR "${what}: exit ${code} (expected ${rc}), stderr does not match "
                        "'${pattern}':\n${err}\nstdout:\n${out}")
  endif()
  if(NOT out STREQUAL "" OR NOT before STREQUAL after)
    message(FATAL_ERROR "${what}: ran anyway or wrote something:\n${out}\n${after}")
  endif()
endfunction()

foreach(value nan inf -1 1e39)
  refused("--lifespan-threshold ${value}" 2 "--lifespan-threshold takes a number from 0 to"
          ${RUN} --lifespan-threshold ${value})
endforeach()
foreach(value 1e39 nan -0.5 101)
  refused("--temp ${value}" 2 "--temp takes a number from 0 to 100, not '${value}'"
          ${RUN} --temp ${value})
endforeach()

# Options the other settings would not read.
refused("--sink under manual" 2 "--sink .*--policy manual" ${RUN} --sink 3)
refused("--window under pair-merge" 2 "--window .*--policy pair-merge"
        ${RUN} --policy pair-merge --window 3)
refused("--gate under h2o" 2 "--gate is read by --policy smartkv alone, not by h2o"
        ${RUN} --policy h2o --gate ${WORK}/g.gguf)
file(WRITE ${WORK}/text.txt "In the beginning God created the heaven and the earth.")
refused("compare --gate without smartkv" 2 "--gate .* not by h2o, random"
        ${KVW} compare ${MODEL} --file ${WORK}/text.txt --policy h2o --policy random
        --gate ${WORK}/g.gguf)
refused("--wlod-max without wLOD" 2 "--wlod-max needs --wlod-k" ${RUN} --wlod-max 40)
refused("--gist-net without wLOD" 2 "--gist-net needs --wlod-k" ${RUN} --gist-net ${WORK}/n.gguf)

# A collapse with wLOD off has no block size (it ran with a hidden K of 32).
file(WRITE ${WORK}/collapse.json "[{\"action\":\"collapse\",\"pos\":4,\"level\":1}]")
refused("collapse without --wlod-k" 1 "no wLOD block size K: turn wLOD on first \\(--wlod-k K"
        ${KVW} run ${MODEL} --prompt "In the beginning God created the heaven" --quiet
        --actions ${WORK}/collapse.json)
file(REMOVE ${WORK}/collapse.json)

# Output paths, before the model loads or the work runs.
set(NODIR ${WORK}/no/such/dir)
refused("run --record-lifespans" 1 "--record-lifespans: cannot write ${NODIR}/l.gguf"
        ${RUN} --record-lifespans ${NODIR}/l.gguf)
refused("sweep --out" 1 "--out: cannot write ${NODIR}/s.csv"
        ${KVW} sweep ${MODEL} --file ${WORK}/text.txt --budgets 2 --out ${NODIR}/s.csv)
refused("sweep --plot" 1 "--plot: cannot write ${NODIR}/s.png"
        ${KVW} sweep ${MODEL} --file ${WORK}/text.txt --budgets 2 --out ${WORK}/s.csv
        --plot ${NODIR}/s.png)
refused("sweep --out a folder" 1 "--out: cannot write ${WORK}: Is a directory"
        ${KVW} sweep ${MODEL} --file ${WORK}/text.txt --budgets 2 --out ${WORK})
refused("train-gate --out" 1 "--out: cannot write ${NODIR}/g.gguf"
        ${KVW} train-gate --data ${WORK}/missing.gguf --out ${NODIR}/g.gguf)
refused("make-model OUT" 1 "OUT: cannot write ${NODIR}/m.gguf"
        ${KVW} make-model tiny ${NODIR}/m.gguf)
execute_process(COMMAND ${RUN} --trace ${WORK}/trace.ndjson OUTPUT_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "could not record a trace to fork (exit ${rc})")
endif()
refused("fork --out" 1 "--out: cannot write ${NODIR}/f.ndjson"
        ${KVW} fork ${WORK}/trace.ndjson --at 1 --out ${NODIR}/f.ndjson)
message(STATUS "options are checked before the work, naming the option")
