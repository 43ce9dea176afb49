#pragma once
// Small helpers for tests that expect a typed error.
#include <optional>
#include <string>

#include "core/model/model_error.h"

namespace kvw::test {

// The ModelError `load` throws, or nothing when it throws none.
template <typename F>
std::optional<ModelError> model_error_of(F load) {
    try {
        load();
    } catch (const ModelError& e) {
        return e;
    }
    return std::nullopt;
}

inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace kvw::test
