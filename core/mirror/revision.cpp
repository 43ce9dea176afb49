#include "core/mirror/revision.h"

#include <atomic>

namespace kvw {

uint64_t next_revision() {
    static std::atomic<uint64_t> last{0};
    return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

}  // namespace kvw
