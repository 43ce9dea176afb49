#pragma once
#include <string>
#include <vector>

namespace kvw::cli {

// Runs `program` (a Qt program built with the GUI next to kvw, so that kvw itself stays free of
// Qt) in kvw's place with `args`: its exit status becomes kvw's. When it is not there, says
// where it comes from on stderr, `command` first, and returns 2; when it cannot run, 1.
int exec_beside(const std::string& command, const std::string& program,
                const std::vector<std::string>& args);

}  // namespace kvw::cli
