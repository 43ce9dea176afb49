// The translation unit the tests' shared precompiled header is made from (tests/CMakeLists.txt).
