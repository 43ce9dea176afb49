#pragma once
// Every command a Session records in its trace, as one value type (ARCHITECTURE §7
// "Commands"). Each alternative knows its event name (kEvent), its JSON form (to_json(),
// from_json() raising TraceError / JsonError naming the NDJSON line and key) and how it runs
// (apply(Session&)). The list below is the registration table: command_table.h derives from it
// the decoder of each event name, so adding a command is one type and one row here.
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "core/session/command/backend_commands.h"
#include "core/session/command/cache_commands.h"
#include "core/session/command/edit_commands.h"
#include "core/session/command/policy_commands.h"
#include "core/session/command/sequence_commands.h"
#include "core/session/command/storage_commands.h"
#include "core/session/command/wlod_commands.h"

namespace kvw {

using SessionCommand =
    std::variant<command::Start, command::Tick, command::Inject, command::ApplyNow,
                 command::ClearInjected, command::Rebuild, command::Drift, command::SetProposer,
                 command::SetPolicyOptions, command::SetRopePolicy, command::SetLayout,
                 command::SetKvTypes, command::SetGuard, command::SetWlod, command::SetGistNet,
                 command::SetBackend, command::Desync, command::InjectFault>;

// The trace event's name ("tick", "set_layout", ...).
std::string_view event_name(const SessionCommand& command);
// The command part of its trace event; the Session adds the outcomes (tick, state hash, result).
nlohmann::json to_json(const SessionCommand& command);
// Runs it: the Session method it names, which records its event in the trace.
void apply_command(const SessionCommand& command, Session& session);

}  // namespace kvw
