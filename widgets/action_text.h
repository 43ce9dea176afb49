#pragma once
#include <QString>

#include "core/state/action.h"

namespace kvw {

// How the views name an action in tables and lists: one phrase per column.
// "delete", "replace_pair → [12, 34]", "add 42", "insert [5, 6]"
QString action_summary_text(const Action& action);
QString action_rows_text(const Action& action);    // "12", "45–46", "end", "before 12"
QString action_layers_text(const Action& action);  // "all", "0, 2"

}  // namespace kvw
