#pragma once
// Where the Python fixture (tests/data/make_all.py) wrote the test data.
#include <cstdlib>
#include <string>

namespace kvw::test {

inline std::string testdata_path(const std::string& relative) {
    const char* root = std::getenv("KVW_TESTDATA");
    return std::string(root ? root : "testdata") + "/" + relative;
}

}  // namespace kvw::test
