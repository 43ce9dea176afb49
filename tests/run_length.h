#pragma once
// How long the tests whose length is their point (long runs, many random commands) run. The
// sanitizer job (scripts/test.sh, KVW_SANITIZE) makes every tick several times slower, so there
// they run a shorter stretch of the same thing; the ci job runs them in full.

namespace kvw::test {

#ifdef KVW_TESTS_UNDER_SANITIZERS
inline constexpr bool kUnderSanitizers = true;
#else
inline constexpr bool kUnderSanitizers = false;
#endif

// `full` in the ci job, `sanitized` (smaller, still covering every case) under the sanitizers.
constexpr int run_length(int full, int sanitized) { return kUnderSanitizers ? sanitized : full; }

}  // namespace kvw::test
