#pragma once
// Shared by the tests of session commands' JSON (test_session_command, test_backend_switch): the
// error decoding an event gives, as text.
#include <string>

#include <nlohmann/json.hpp>

#include "core/session/command/command_table.h"
#include "core/session/trace.h"

namespace kvw::test {

// The TraceError decoding `event` as line 7 of "t.ndjson" throws, or "wrong place: …" when it
// names another line or file, or "no fault".
inline std::string decoding_fault(const nlohmann::json& event) {
    try {
        (void)decode_command(event, 7, "t.ndjson");
    } catch (const TraceError& e) {
        if (e.line() != 7 || e.file() != "t.ndjson") return "wrong place: " + std::string(e.what());
        return e.what();
    }
    return "no fault";
}

inline bool mentions(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace kvw::test
