# kv-workbench --script fails the way a person can act on: a non-zero exit and one line
# "FILE:LINE: COMMAND: MESSAGE" for a parse error, a refused command, an unknown view and a
# failed expectation; a shot that differs from its golden image fails the run and leaves a
# NAME.diff.png; the same script rendered twice compares equal.
# Usage: cmake -DKVW=path/to/kv-workbench -DWORK=scratch/dir -P script_errors.cmake
set(ENV{QT_QPA_PLATFORM} offscreen)
unset(ENV{KVW_UPDATE_GOLDEN})
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(START "load synthetic:tiny\nprompt The cache remembers\n")

# Runs TEXT as WORK/NAME.kvs with the extra arguments; sets rc and err in the caller.
function(run_script name text)
  file(WRITE ${WORK}/${name}.kvs "${text}")
  execute_process(COMMAND ${KVW} --script ${WORK}/${name}.kvs ${ARGN}
                  RESULT_VARIABLE code ERROR_VARIABLE stderr OUTPUT_QUIET)
  set(rc ${code} PARENT_SCOPE)
  set(err "${stderr}" PARENT_SCOPE)
endfunction()

function(expect_failure name text expected)
  run_script(${name} "${text}" --shots ${WORK}/shots)
  if(rc EQUAL 0)
    message(FATAL_ERROR "${name}.kvs passed; expected a failure with '${expected}'")
  endif()
  string(FIND "${err}" "${WORK}/${name}.kvs:${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${name}.kvs: no '${WORK}/${name}.kvs:${expected}' in:\n${err}")
  endif()
endfunction()

expect_failure(parse "${START}stepp 2\n" "3: stepp 2: unknown command")
expect_failure(expectation "${START}step 2\nexpect tick 5\n" "4: expect tick 5: the tick is 2")
expect_failure(rejected "${START}inject {\"action\":\"delete\",\"pos\":999}\n"
               "3: inject {\"action\":\"delete\",\"pos\":999}: inject: ")
expect_failure(no_model "prompt hello\n" "1: prompt hello: prompt: no model loaded")
# The session, the worker and the runner all name the command: once is enough.
expect_failure(no_prompt "load synthetic:tiny\nrebuild\n"
               "2: rebuild: the session has no prompt yet")
expect_failure(unknown_view "${START}shot a nosuchview\n" "3: shot a nosuchview: no view 'nosuchview'")
expect_failure(invariant "${START}expect invariant ids_live fail\n"
               "3: expect invariant ids_live fail: ids_live is pass")

# Goldens: written on request, equal on a second run, different after one more tick.
set(ENV{KVW_UPDATE_GOLDEN} 1)
run_script(golden "${START}step 1\nshot strip tokens\n" --shots ${WORK}/a --compare ${WORK}/golden)
unset(ENV{KVW_UPDATE_GOLDEN})
if(NOT rc EQUAL 0 OR NOT EXISTS ${WORK}/golden/strip.png)
  message(FATAL_ERROR "KVW_UPDATE_GOLDEN=1 did not write ${WORK}/golden/strip.png:\n${err}")
endif()
run_script(golden "${START}step 1\nshot strip tokens\n" --shots ${WORK}/b --compare ${WORK}/golden)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the same script rendered differently:\n${err}")
endif()
run_script(golden "${START}step 2\nshot strip tokens\n" --shots ${WORK}/c --compare ${WORK}/golden)
if(rc EQUAL 0 OR NOT EXISTS ${WORK}/c/strip.diff.png)
  message(FATAL_ERROR "a different token strip compared equal (rc ${rc}):\n${err}")
endif()
string(FIND "${err}" "golden.kvs:4: shot strip tokens: " at)
if(at EQUAL -1)
  message(FATAL_ERROR "the mismatch does not name the line:\n${err}")
endif()
message(STATUS "script errors name file, line and command; goldens compare")
