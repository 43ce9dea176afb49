# Whole-window screenshots: the same script run twice gives the same pixels (tick and step times,
# which differ from run to run, are hidden in script runs: ARCHITECTURE §10), and at 1,024 × 700
# the window is exactly that size with no dock drawn over another (the committed golden
# tests/scripts/golden/window_1024x700/window.png, looked at when it was made).
# Usage: cmake -DKVW=path/to/kv-workbench -DWORK=scratch/dir -DGOLDEN=golden/dir -P window_shots.cmake
set(ENV{QT_QPA_PLATFORM} offscreen)
unset(ENV{KVW_UPDATE_GOLDEN})
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/window.kvs
"load synthetic:tiny
prompt The cache remembers what the model was told
step 6
apply {\"action\":\"delete\",\"pos\":2}
drift
rebuild
drift
select 4
shot window
shot timeline timeline
shot tick tick
")

# On the numeric reference, as the golden was made (the default `auto` depends on the machine).
function(run_shots name)
  execute_process(COMMAND ${KVW} --script ${WORK}/window.kvs --backend cpu
                          --shots ${WORK}/${name} ${ARGN}
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "run ${name} (${ARGN}) ended with ${rc}:\n${err}")
  endif()
endfunction()

foreach(size 1600x1000 1024x700)
  set(ENV{KVW_UPDATE_GOLDEN} 1)
  run_shots(first-${size} --size ${size} --compare ${WORK}/golden-${size})
  unset(ENV{KVW_UPDATE_GOLDEN})
  run_shots(second-${size} --size ${size} --compare ${WORK}/golden-${size} --tolerance 0)
endforeach()
run_shots(committed --size 1024x700 --compare ${GOLDEN} --tolerance 8)
message(STATUS "the same script gives the same window twice; 1024x700 matches its golden")
