#pragma once
// How long the tests whose length is their point (long runs, many random commands) run. The
// sanitizer job (scripts/test.sh, KVW_SANITIZE) makes every tick several times slower, so there
// they run a shorter stretch of the same thing; the ci job runs them in full.

namespace kvw::test {

// `full` in the ci job, `sanitized` (smaller, still covering every case) under the sanitizers.
constexpr int run_length(int full, int sanitized) {
#ifdef KVW_TESTS_UNDER_SANITIZERS
    (void)full;
    return sanitized;
#else
    (void)sanitized;
    return full;
#endif
}

}  // namespace kvw::test
