#pragma once
// Small helpers for tests that expect a typed error.
#include <QString>
#include <optional>
#include <string>

#include "core/cache/cache_error.h"
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

// "" when `write` throws a CapacityExceeded that names this layer, position, requested rows and
// capacity, in its fields and in its message; else what differs.
template <typename F>
QString capacity_exceeded_mismatch(F write, int layer, int position, int requested, int capacity) {
    try {
        write();
    } catch (const CapacityExceeded& e) {
        std::string out;
        const auto field = [&](const char* name, int got, int want) {
            if (got != want)
                out += std::string(name) + " " + std::to_string(got) + ", not " +
                       std::to_string(want) + "; ";
        };
        field("layer", e.layer(), layer);
        field("position", e.position(), position);
        field("requested", e.requested(), requested);
        field("capacity", e.capacity(), capacity);
        for (const std::string& part :
             {"layer " + std::to_string(layer), "position " + std::to_string(position),
              "capacity of " + std::to_string(capacity)})
            if (!contains(e.what(), part))
                out += "the message '" + std::string(e.what()) + "' lacks '" + part + "'; ";
        return QString::fromStdString(out);
    }
    return "no CapacityExceeded";
}

}  // namespace kvw::test
