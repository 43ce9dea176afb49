# One window, models of different layer counts loaded one after the other (4, 2, then 4 layers
# again) with the timeline in front and layer 3 selected: the window must survive (the timeline
# once left legend entries of removed graphs and crashed in the next replot), drop the layer
# the new model lacks and run each model's ticks.
# Usage: cmake -DKVW=path/to/kv-workbench -DWORK=scratch/dir -DMODEL=tiny_f32.gguf -P model_switch.cmake
set(ENV{QT_QPA_PLATFORM} offscreen)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/switch.kvs
"load synthetic:tiny
prompt The cache remembers
step 3
view timeline
layer 3
shot four-layers timeline
load ${MODEL}
prompt ab
step 3
expect tick 3
expect rows 1 5
shot two-layers timeline
load synthetic:tiny
prompt The cache
step 2
expect tick 2
shot four-layers-again
")
execute_process(COMMAND ${KVW} --script ${WORK}/switch.kvs --shots ${WORK}/shots
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "switching models ended with ${rc}:\n${err}")
endif()
message(STATUS "models of 4, 2 and 4 layers ran in one window")
